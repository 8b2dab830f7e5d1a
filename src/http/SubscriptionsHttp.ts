import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect, Option } from "effect"
import { Api } from "../api/Api.js"
import { Subscriptions } from "../services/Subscriptions.js"

export const SubscriptionsHttp = HttpApiBuilder.group(Api, "subscriptions", (handlers) =>
  Effect.gen(function*() {
    const subscriptions = yield* Subscriptions
    return handlers
      .handle("subscribe", ({ payload, request }) =>
        subscriptions.subscribe(payload.email, Option.getOrElse(request.remoteAddress, () => "unknown")).pipe(
          // The typed error has no headers; 429 must carry Retry-After (CONTRACT.md "General").
          Effect.catchTag("TooManyRequests", (error) =>
            Effect.succeed(HttpServerResponse.unsafeJson(
              { _tag: error._tag, message: error.message, retryAfterSeconds: error.retryAfterSeconds },
              { status: 429, headers: { "retry-after": String(error.retryAfterSeconds) } }
            )))
        ))
      .handle("verify", ({ path }) => subscriptions.verify(path.token))
      .handle("unsubscribe", ({ payload }) => subscriptions.unsubscribe(payload.email, payload.token))
      .handle("oneClickUnsubscribe", ({ urlParams }) => subscriptions.unsubscribe(urlParams.email, urlParams.token))
  }))

export const SubscribersHttp = HttpApiBuilder.group(Api, "subscribers", (handlers) =>
  Effect.gen(function*() {
    const subscriptions = yield* Subscriptions
    return handlers
      .handle("list", () => subscriptions.list())
      .handle("remove", ({ path }) => subscriptions.remove(path.id))
  }))
