import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "@effect/platform"
import { Schema } from "effect"
import { NotFound, TooManyRequests } from "../domain/Errors.js"
import { Authentication } from "./Security.js"
import {
  OneClickParams,
  Subscribe,
  SubscribeAccepted,
  Subscriber,
  SubscriberId,
  Unsubscribe,
  Unsubscribed,
  Verified,
  VerifyPath
} from "../domain/Subscriber.js"

/** The public side of e-mail subscriptions: no authentication. */
export class SubscriptionsApi extends HttpApiGroup.make("subscriptions")
  .add(
    HttpApiEndpoint.post("subscribe", "/subscribe")
      .setPayload(Subscribe)
      .addSuccess(SubscribeAccepted, { status: 202 })
      .addError(TooManyRequests)
  )
  .add(
    HttpApiEndpoint.get("verify", "/subscribe/verify/:token")
      .setPath(VerifyPath)
      .addSuccess(Verified)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("unsubscribe", "/unsubscribe")
      .setPayload(Unsubscribe)
      .addSuccess(Unsubscribed)
      .addError(NotFound)
  )
  .add(
    // RFC 8058: mail clients POST `List-Unsubscribe=One-Click` (form-encoded) to the URL of the
    // List-Unsubscribe header; the address and token travel in the query, the body is ignored.
    HttpApiEndpoint.post("oneClickUnsubscribe", "/unsubscribe/one-click")
      .setUrlParams(OneClickParams)
      .addSuccess(Unsubscribed)
      .addError(NotFound)
  )
  .prefix("/api/v1")
{}

export class SubscribersApi extends HttpApiGroup.make("subscribers")
  .add(HttpApiEndpoint.get("list", "/").addSuccess(Schema.Array(Subscriber.json)))
  .add(
    HttpApiEndpoint.del("remove", "/:id")
      .setPath(Schema.Struct({ id: SubscriberId }))
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
  )
  .middleware(Authentication)
  .prefix("/api/v1/admin/subscribers")
{}
