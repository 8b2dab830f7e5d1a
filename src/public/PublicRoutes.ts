/**
 * The public status page and what hangs off it, served beside the API: `/`, `/incidents/:id`,
 * `/maintenance/:id`, `/history` and `/history/:page` (`/history?page=N` too), the subscribe form (`POST /subscribe`), the landing pages of
 * the e-mail links (`/subscribe/verify/:token`, `/subscription`, `/unsubscribe`) with the forms
 * they post, the
 * badge (`/badge.svg`) and the widget (`/widget.json`). All of it works without JavaScript: the
 * forms are plain HTML forms.
 */
import { Effect, Option, Result, Schema } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"

import { isCrossSiteChange } from "../api/SameOrigin.js"
import type { PublicComponentGroup } from "../domain/ComponentGroup.js"
import { EmailAddress, SubscribedComponents } from "../domain/Subscriber.js"
import { AppConfig } from "../runtime/Config.js"
import { Subscriptions } from "../services/notifications/Subscriptions.js"
import { commonHeaders, type EncodedPage, htmlContentType, pageHeaders, PublicPages } from "./PublicPages.js"
import { toHttpResponse } from "./PublicResponses.js"
import type { RenderedPage } from "./render/Layout.js"
import {
  confirmSubscriptionForm,
  messagePage,
  type PreferencesNotice,
  preferencesPage,
  unsubscribeForm
} from "./render/Pages.js"

/** A page for one visitor (a form's answer): never stored by caches. */
// Sent as it is: no ETag or gzip to prepare for a page nobody else reads.
const personalResponse = (page: RenderedPage, status = 200, extra: Record<string, string> = {}) =>
  HttpServerResponse.text(page.html, {
    status,
    contentType: htmlContentType,
    headers: { ...pageHeaders(page), ...extra, "cache-control": "no-store" }
  })

const notFound = HttpServerResponse.text("Not found", { status: 404, headers: commonHeaders })
const unavailable = HttpServerResponse.text(
  "The status page is starting or cannot reach its database. Try again in a moment.",
  {
    status: 503,
    headers: { ...commonHeaders, "retry-after": "5" }
  }
)

const searchParam = (request: HttpServerRequest.HttpServerRequest, name: string) =>
  new URL(request.url, "http://localhost").searchParams.get(name) ?? undefined

const decodeEmail = Schema.decodeUnknownResult(EmailAddress)
const decodeComponents = Schema.decodeUnknownResult(SubscribedComponents)

/** How many components a subscriber may choose (SubscribedComponents); more is every component, in effect. */
const maxChosen = 100

/**
 * The components a form's ticked boxes name, a ticked group standing for its public components
 * as they are now, each counted once; `refused` when a value could be no component id or names
 * no public group, `tooMany` past `maxChosen`. Repeated fields are read once each, so a body of
 * thousands of them costs no more than its distinct values.
 */
const chosenComponents = (
  form: URLSearchParams,
  groups: ReadonlyArray<PublicComponentGroup>
): ReadonlyArray<string> | "refused" | "tooMany" => {
  const members = new Map(groups.map((group) => [group.id, group.componentIds]))
  const ids = new Set(form.getAll("componentIds"))
  for (const groupId of new Set(form.getAll("groupIds"))) {
    const ofGroup = members.get(groupId)
    if (ofGroup === undefined) return "refused"
    for (const id of ofGroup) ids.add(id)
    if (ids.size > maxChosen) return "tooMany"
  }
  if (ids.size > maxChosen) return "tooMany"
  return Result.getOrElse(decodeComponents([...ids]), () => "refused" as const) ?? []
}

const choiceRefusals = {
  refused: "Choose among the listed components: one of these is no longer offered.",
  tooMany: `Choose at most ${maxChosen} components, or none to hear about every one.`
} as const

const componentsRefused = choiceRefusals.refused

export const PublicRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const pages = yield* PublicPages
    const subscriptions = yield* Subscriptions
    const { publicUrl } = yield* AppConfig

    /** Answers a page from the cache, 404 when it has none, 503 before the first snapshot. */
    const cachedOr404 = <E>(page: Effect.Effect<EncodedPage | null, E>) =>
      page.pipe(
        // A cached page, with ETag revalidation (304) and gzip for clients that accept it.
        Effect.flatMap((found) => found ? toHttpResponse(found) : Effect.succeed(notFound)),
        Effect.catch(() => Effect.succeed(unavailable))
      )

    /** A page answering a form or a link, in the frame of the status page. */
    const answer = (options: Parameters<typeof messagePage>[1], status: number, extra: Record<string, string> = {}) =>
      Effect.map(pages.state, (state) => personalResponse(messagePage(state, options), status, extra))

    /** Cross-site form posts are refused, as for the API (docs/api.md). */
    const sameSiteForm = <E, R>(
      handle: (form: URLSearchParams) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
    ) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        if (isCrossSiteChange(request, publicUrl)) {
          return yield* answer({
            title: "Not sent",
            message: "This form can only be sent from this status page.",
            ok: false
          }, 403)
        }
        const body = yield* request.text
        return yield* handle(new URLSearchParams(body))
      }).pipe(Effect.catch(() => Effect.succeed(unavailable)))

    yield* router.add("GET", "/", cachedOr404(pages.status))
    yield* router.add(
      "GET",
      "/incidents/:id",
      Effect.flatMap(HttpRouter.params, (params) => cachedOr404(pages.incident(params.id ?? "")))
    )
    yield* router.add(
      "GET",
      "/maintenance/:id",
      Effect.flatMap(HttpRouter.params, (params) => cachedOr404(pages.maintenance(params.id ?? "")))
    )
    const historyPage = (page: string) =>
      /^[1-9]\d{0,5}$/.test(page) ? cachedOr404(pages.history(Number(page))) : Effect.succeed(notFound)
    yield* router.add(
      "GET",
      "/history",
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => historyPage(searchParam(request, "page") ?? "1"))
    )
    yield* router.add(
      "GET",
      "/history/:page",
      Effect.flatMap(HttpRouter.params, (params) => historyPage(params.page ?? ""))
    )
    yield* router.add(
      "GET",
      "/badge.svg",
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        cachedOr404(pages.badge(searchParam(request, "component"))))
    )
    yield* router.add("GET", "/widget.json", cachedOr404(pages.widget))

    yield* router.add(
      "POST",
      "/subscribe",
      sameSiteForm((form) =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const given = form.get("email") ?? ""
          const email = decodeEmail(given)
          const chosen = chosenComponents(form, (yield* pages.state).summary.groups)
          const componentIds = typeof chosen === "string" ? null : chosen
          const refuse = (field: "email" | "componentIds", error: string) =>
            Effect.map(
              pages.statusWithForm({ _tag: "Invalid", field, email: given, componentIds: componentIds ?? [], error }),
              (page) =>
                personalResponse(page, 400)
            )
          if (Result.isFailure(email)) {
            return yield* refuse("email", "Enter an e-mail address, such as name@example.com.")
          }
          if (typeof chosen === "string") return yield* refuse("componentIds", choiceRefusals[chosen])
          const client = Option.getOrElse(request.remoteAddress, () => "unknown")
          return yield* subscriptions.subscribe(email.success, client, componentIds).pipe(
            Effect.flatMap((accepted) => pages.statusWithForm({ _tag: "Done", message: accepted.message, ok: true })),
            Effect.map((page) => personalResponse(page)),
            Effect.catchTag("TooManyRequests", (error) =>
              Effect.map(
                pages.statusWithForm({
                  _tag: "Done",
                  message: "Too many subscription requests. Please try again later.",
                  ok: false
                }),
                (page) => personalResponse(page, 429, { "retry-after": String(error.retryAfterSeconds) })
              )),
            Effect.catchTag("BadRequest", () => refuse("componentIds", componentsRefused))
          )
        })
      )
    )

    const confirmationNotValid = answer({
      title: "Link not valid",
      message: "This confirmation link is unknown, already used or expired. Subscribe again to get a new one.",
      ok: false
    }, 404)

    // The link in the mail shows a button; only its POST confirms, so a scanner that follows links confirms nobody.
    yield* router.add(
      "GET",
      "/subscribe/verify/:token",
      Effect.flatMap(HttpRouter.params, (params) => {
        const token = params.token ?? ""
        return subscriptions.isPending(token).pipe(
          Effect.flatMap((pending) =>
            pending
              ? answer({
                title: "Confirm your subscription",
                message: "Confirm to receive incident and maintenance updates by e-mail.",
                ok: true,
                extra: confirmSubscriptionForm(token)
              }, 200)
              : confirmationNotValid
          ),
          Effect.catch(() => Effect.succeed(unavailable))
        )
      })
    )
    yield* router.add(
      "POST",
      "/subscribe/verify",
      sameSiteForm((form) =>
        subscriptions.verify(form.get("token") ?? "").pipe(
          Effect.flatMap((verified) =>
            answer({
              title: "Subscription confirmed",
              message: `${verified.email} will now receive incident and maintenance updates.`,
              ok: true
            }, 200)
          ),
          Effect.catchTag("NotFound", () => confirmationNotValid)
        )
      )
    )

    const linkNotValid = answer({
      title: "Link not valid",
      message: "No subscription matches this link: it may have ended already. Use the link from the latest e-mail.",
      ok: false
    }, 404)

    /** The preferences page of a mail's link, 404 for a pair that names no subscription. */
    const preferencesAnswer = (
      email: string,
      token: string,
      componentIds: ReadonlyArray<string> | null,
      notice: PreferencesNotice,
      status = 200
    ) =>
      Effect.map(
        pages.state,
        (state) => personalResponse(preferencesPage(state, { email, token, componentIds, notice }), status)
      )

    // The link in every notification mail: the page only reads; its forms post.
    yield* router.add(
      "GET",
      "/subscription",
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        const email = decodeEmail(searchParam(request, "email") ?? "")
        const token = searchParam(request, "token") ?? ""
        return (Result.isFailure(email) || token === ""
          ? answer({
            title: "Link not valid",
            message: "This link is incomplete. Use the link from the latest e-mail.",
            ok: false
          }, 400)
          : subscriptions.preferences(email.success, token).pipe(
            Effect.flatMap((found) => preferencesAnswer(found.email, token, found.componentIds, { _tag: "None" })),
            Effect.catchTag("NotFound", () => linkNotValid)
          ))
          .pipe(Effect.catch(() => Effect.succeed(unavailable)))
      })
    )
    /** Saves a subscriber's choice from the preferences form and shows the page again with what was saved. */
    const save = (email: string, token: string, componentIds: ReadonlyArray<string>) =>
      subscriptions.choose(email, token, componentIds).pipe(
        Effect.andThen(subscriptions.preferences(email, token)),
        Effect.flatMap((saved) =>
          Effect.flatMap(pages.state, (state) => {
            const nameOf = new Map(state.components.map((component) => [component.id, component.name]))
            const names = (saved.componentIds ?? []).flatMap((id) => nameOf.get(id) ?? [])
            return preferencesAnswer(saved.email, token, saved.componentIds, {
              _tag: "Saved",
              message: saved.componentIds === null
                ? "Saved: you hear about every component."
                : `Saved: you hear about ${names.join(", ")}, and about updates that name no component.`
            })
          })
        ),
        Effect.catchTags({
          NotFound: () => linkNotValid,
          BadRequest: () =>
            preferencesAnswer(email, token, componentIds, { _tag: "Invalid", error: componentsRefused }, 400)
        })
      )

    yield* router.add(
      "POST",
      "/subscription",
      sameSiteForm((form) => {
        // Addresses are stored as EmailAddress normalizes them (trimmed, lower case).
        const email = Result.getOrElse(decodeEmail(form.get("email") ?? ""), () => "")
        const token = form.get("token") ?? ""
        if (form.get("action") === "unsubscribe") {
          return subscriptions.unsubscribe(email, token).pipe(
            Effect.flatMap(() =>
              answer({ title: "Unsubscribed", message: `${email} will receive no more updates.`, ok: true }, 200)
            ),
            Effect.catchTag("NotFound", () => linkNotValid)
          )
        }
        return Effect.flatMap(pages.state, (state) => {
          const chosen = chosenComponents(form, state.summary.groups)
          return typeof chosen === "string"
            ? preferencesAnswer(email, token, [], { _tag: "Invalid", error: choiceRefusals[chosen] }, 400)
            : save(email, token, chosen)
        })
      })
    )

    yield* router.add(
      "GET",
      "/unsubscribe",
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        const email = searchParam(request, "email")
        const token = searchParam(request, "token")
        return (email && token
          ? answer({
            title: "Unsubscribe",
            message: `Stop sending status updates to ${email}?`,
            ok: true,
            extra: unsubscribeForm(email, token)
          }, 200)
          : answer({
            title: "Link not valid",
            message: "This unsubscribe link is incomplete. Use the link from the latest e-mail.",
            ok: false
          }, 400))
          .pipe(Effect.catch(() => Effect.succeed(unavailable)))
      })
    )
    yield* router.add(
      "POST",
      "/unsubscribe",
      sameSiteForm((form) =>
        // Addresses are stored as EmailAddress normalizes them (trimmed, lower case).
        subscriptions.unsubscribe(
          Result.getOrElse(decodeEmail(form.get("email") ?? ""), () => ""),
          form.get("token") ?? ""
        ).pipe(
          Effect.flatMap(() =>
            answer(
              { title: "Unsubscribed", message: `${form.get("email")} will receive no more updates.`, ok: true },
              200
            )
          ),
          Effect.catchTag("NotFound", () =>
            answer({
              title: "Not unsubscribed",
              message: "No subscription matches this link: it may have ended already.",
              ok: false
            }, 404))
        )
      )
    )
  })
)
