import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { adminPageBounds, pageRequest } from "../domain/Page.js"
import { deliveriesPageBounds } from "../domain/Webhook.js"
import { Webhooks } from "../services/notifications/webhooks/Webhooks.js"
import { answerPage } from "./PageLinks.js"

export const WebhooksHttp = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  Effect.gen(function*() {
    const webhooks = yield* Webhooks
    return handlers
      .handle("list", ({ query }) => Effect.flatMap(webhooks.list(pageRequest(query, adminPageBounds)), answerPage))
      .handle("get", ({ params }) => webhooks.get(params.id))
      .handle("create", ({ payload }) => webhooks.create(payload))
      .handle("update", ({ params, payload }) => webhooks.update(params.id, payload))
      .handle("remove", ({ params }) => webhooks.remove(params.id))
      .handle("toggle", ({ params }) => webhooks.toggle(params.id))
      .handle("test", ({ params }) => webhooks.test(params.id))
      .handle("deliveries", ({ params, query }) =>
        Effect.flatMap(webhooks.deliveries(params.id, pageRequest(query, deliveriesPageBounds)), answerPage))
  }))
