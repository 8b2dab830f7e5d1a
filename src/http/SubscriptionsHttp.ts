import { Effect, Option } from "effect"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { adminPageBounds, pageRequest } from "../domain/Page.js"
import { Subscriptions } from "../services/notifications/Subscriptions.js"
import { answerPage } from "./PageLinks.js"
import { withRetryAfter } from "./RetryAfter.js"

export const SubscriptionsHttp = HttpApiBuilder.group(Api, "subscriptions", (handlers) =>
  Effect.gen(function*() {
    const subscriptions = yield* Subscriptions
    return handlers
      .handle("subscribe", ({ payload, request }) =>
        subscriptions.publicPage(payload.page).pipe(
          Effect.flatMap((page) =>
            subscriptions.subscribe(
              payload.email,
              Option.getOrElse(request.remoteAddress, () => "unknown"),
              payload.componentIds,
              { pageId: page.id, locale: payload.locale ?? page.locale }
            )
          ),
          withRetryAfter
        ))
      .handle("verify", ({ params }) => subscriptions.verify(params.token))
      .handle("unsubscribe", ({ payload }) => subscriptions.unsubscribe(payload.email, payload.token))
      .handle("oneClickUnsubscribe", ({ query }) => subscriptions.unsubscribe(query.email, query.token))
  }))

export const SubscribersHttp = HttpApiBuilder.group(Api, "subscribers", (handlers) =>
  Effect.gen(function*() {
    const subscriptions = yield* Subscriptions
    return handlers
      .handle(
        "list",
        ({ query }) => Effect.flatMap(subscriptions.list(pageRequest(query, adminPageBounds)), answerPage)
      )
      .handle("remove", ({ params }) => subscriptions.remove(params.id))
  }))
