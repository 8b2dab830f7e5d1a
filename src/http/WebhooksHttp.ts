import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { Webhooks } from "../services/notifications/webhooks/Webhooks.js"

export const WebhooksHttp = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  Effect.gen(function*() {
    const webhooks = yield* Webhooks
    return handlers
      .handle("list", () => webhooks.list())
      .handle("create", ({ payload }) => webhooks.create(payload))
      .handle("update", ({ params, payload }) => webhooks.update(params.id, payload))
      .handle("remove", ({ params }) => webhooks.remove(params.id))
      .handle("toggle", ({ params }) => webhooks.toggle(params.id))
      .handle("test", ({ params }) => webhooks.test(params.id))
      .handle("deliveries", ({ params }) => webhooks.deliveries(params.id))
  }))
