import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"

import { BadRequest, NotFound, TooManyRequests } from "../domain/Errors.js"
import { adminPageBounds, pageQueryFields } from "../domain/Page.js"
import { RequiredRole } from "../domain/Role.js"
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
import { endpointDocs, groupDocs, pagedList } from "./Docs.js"
import { JsonBodies } from "./JsonBodies.js"
import { Authentication } from "./Security.js"

/** The public side of e-mail subscriptions: no authentication. */
export class SubscriptionsApi extends HttpApiGroup.make("subscriptions")
  .add(
    HttpApiEndpoint.post("subscribe", "/subscribe", {
      payload: Subscribe,
      success: SubscribeAccepted.pipe(HttpApiSchema.status(202)),
      error: [BadRequest, NotFound, TooManyRequests]
    })
      .annotateMerge(endpointDocs(
        "Subscribe an e-mail address",
        "Takes `{ email, componentIds?, page?, locale? }` (`email` trimmed and lower-cased; at most 254 characters, no whitespace " +
          "or control characters) and answers **202** with the same `{ message }` whether the address is new, " +
          "pending or verified; the confirmation mail is sent in the background, so the response time does not " +
          "tell either. A new or pending address gets a fresh link `{PUBLIC_URL}/subscribe/verify/{token}`, valid " +
          "48 hours (a newer request replaces the older link); a verified address gets no mail. The confirmation " +
          "mail is sent once: a failed send is retried from the database while its link works, so an SMTP outage " +
          "delays it. The link opens a page whose **Confirm** button confirms; following it confirms nothing.",
        "`componentIds`: the public components to be mailed about, at most 100; absent, null or `[]` means every " +
          "component. An item naming none of them is not mailed, unless it names no public component at all. An " +
          "id that is unknown or not public is **400** `BadRequest` with an issue at each place it appears. A new " +
          "or pending address takes the choice of its latest request; a verified address keeps its own, which " +
          "the preferences page linked from every notification mail changes.",
        "`page`: the slug of the status page to subscribe to; absent, the default page. A subscription belongs " +
          "to one page: its mail is about what that page shows, in the page's name and with links to its " +
          "address, and an address may subscribe to several pages (one mail per page). The chosen " +
          "`componentIds` must be on that page. A slug no page has, or a protected page's, is **404** " +
          "`NotFound`. `locale`: the language of its mail (`en`, `de`, `fr`, `es`, `pt-BR`, `ja`, `zh-CN`); " +
          "absent, the page's. Each page's subscription of an address is requested, confirmed and " +
          "unsubscribed on its own.",
        "Limits: 3 requests per address (to any page) and 20 per client address per hour, shared by all instances; past them " +
          "**429** `TooManyRequests` with `Retry-After` (seconds) and `retryAfterSeconds`."
      ))
  )
  .add(
    HttpApiEndpoint.get("verify", "/subscribe/verify/:token", {
      params: VerifyPath,
      success: Verified,
      error: NotFound
    })
      .annotateMerge(endpointDocs(
        "Confirm a subscription",
        "The token of the confirmation link. Answers `{ verified: true, email }` once; then, as for an unknown " +
          "or expired token, **404**."
      ))
  )
  .add(
    HttpApiEndpoint.post("unsubscribe", "/unsubscribe", {
      payload: Unsubscribe,
      success: Unsubscribed,
      error: NotFound
    })
      .annotateMerge(endpointDocs(
        "Unsubscribe",
        "Takes `{ email, token }`, the unsubscribe token every notification mail carries in its link, removes " +
          "the subscriber and answers `{ unsubscribed: true }`. A pair that matches no subscription is **404**."
      ))
  )
  // The endpoints above take JSON only (415 otherwise); one-click unsubscribe, added after, does not.
  .middleware(JsonBodies)
  .add(
    // RFC 8058: mail clients POST `List-Unsubscribe=One-Click` (form-encoded) to the URL of the
    // List-Unsubscribe header; the address and token travel in the query, the body is ignored.
    HttpApiEndpoint.post("oneClickUnsubscribe", "/unsubscribe/one-click", {
      query: OneClickParams,
      success: Unsubscribed,
      error: NotFound
    })
      .annotateMerge(endpointDocs(
        "One-click unsubscribe (RFC 8058)",
        "The address of every notification mail's `List-Unsubscribe` header (with `List-Unsubscribe-Post: " +
          "List-Unsubscribe=One-Click`). `email` and `token` travel in the query and the body " +
          "(`List-Unsubscribe=One-Click`, form-encoded) is ignored. Same outcome as `POST /api/v1/unsubscribe`: " +
          "`{ unsubscribed: true }`, or **404** for a pair that matches no subscription."
      ))
  )
  .prefix("/api/v1")
  .annotateMerge(groupDocs(
    "E-mail subscriptions with double opt-in, for the public: no authentication.",
    "Verified subscribers are mailed the incident and maintenance events the public may see (those of public " +
      "incidents and windows), of the components they chose; component status changes are not mailed. Every " +
      "mail carries a link to the subscriber's preferences page, an unsubscribe link and a one-click " +
      "`List-Unsubscribe` header."
  ))
{}

export class SubscribersApi extends HttpApiGroup.make("subscribers")
  .add(
    HttpApiEndpoint.get("list", "/", {
      query: pageQueryFields(adminPageBounds),
      success: Schema.Array(Subscriber.json)
    })
      .annotate(RequiredRole, "viewer")
      .annotateMerge(endpointDocs(
        "List subscribers",
        "Every subscriber, oldest first, as `{ id, email, verified, createdAt, verifiedAt, componentIds, " +
          "pageId, locale }`; `componentIds` are the components it is mailed about, null for every component; " +
          "`pageId` the status page subscribed to and `locale` the language of its mail. An address subscribed " +
          "to several pages is listed once per page. Tokens are never listed. Unverified (pending) addresses " +
          "are listed too.",
        pagedList(adminPageBounds)
      ))
  )
  .add(
    HttpApiEndpoint.delete("remove", "/:id", {
      params: Schema.Struct({ id: SubscriberId }),
      success: HttpApiSchema.NoContent,
      error: NotFound
    })
      .annotate(RequiredRole, "admin")
      .annotateMerge(endpointDocs(
        "Remove a subscriber",
        "Deletes the subscriber and answers **204**; an unknown id is 404."
      ))
  )
  .middleware(Authentication)
  .prefix("/api/v1/admin/subscribers")
  .annotateMerge(groupDocs(
    "The e-mail subscribers, for operators (admin; an API key or a session is required, else 401). " +
      "Visitors subscribe and unsubscribe through the public `subscriptions` endpoints."
  ))
{}
