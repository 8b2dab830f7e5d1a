import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"

import { Api } from "../api/Api.js"
import { Webhooks } from "../services/notifications/webhooks/Webhooks.js"

export const WebhooksHttp = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  Effect.gen(function*() {
    const webhooks = yield* Webhooks
    return handlers
      .handle("list", () => webhooks.list())
      .handle("create", ({ payload }) => webhooks.create(payload))
      .handle("update", ({ path, payload }) => webhooks.update(path.id, payload))
      .handle("remove", ({ path }) => webhooks.remove(path.id))
      .handle("toggle", ({ path }) => webhooks.toggle(path.id))
      .handle("test", ({ path }) => webhooks.test(path.id))
      .handle("deliveries", ({ path }) => webhooks.deliveries(path.id))
  }))
