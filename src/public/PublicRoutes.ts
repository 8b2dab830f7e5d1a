/**
 * The public status pages and what hangs off them, served beside the API: `/`, `/incidents/:id`,
 * `/maintenance/:id`, `/history` and `/history/:page` (`/history?page=N` too), the subscribe form
 * (`POST /subscribe`), the landing pages of the e-mail links (`/subscribe/verify/:token`,
 * `/subscription`, `/unsubscribe`) with the forms they post, the badge (`/badge.svg`), the widget
 * (`/widget.json`) and a protected page's password form (`/access`). Each at the site's root (the
 * default page, or the page whose domain the request's host is) and under `/p/<slug>` for any
 * page (PageVisits). All of it works without JavaScript: the forms are plain HTML forms.
 */
import { Duration, Effect, Option, Result, Schema } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"

import { isCrossSiteChange } from "../api/SameOrigin.js"
import type { PublicComponentGroup } from "../domain/ComponentGroup.js"
import type { Unauthorized } from "../domain/Errors.js"
import { EmailAddress, SubscribedComponents } from "../domain/Subscriber.js"
import { messagesFor } from "../i18n/Messages.js"
import { AppConfig } from "../runtime/Config.js"
import { PageAccess, pageAccessCookie, pageAccessMaxAge } from "../services/catalog/PageAccess.js"
import { Subscriptions } from "../services/notifications/Subscriptions.js"
import { forReader, PageVisits, privateHeaders, visitOf } from "./PageVisits.js"
import { commonHeaders, type EncodedPage, htmlContentType, pageHeaders, PublicPages, renderOf } from "./PublicPages.js"
import { type CachedResponse, toHttpResponse } from "./PublicResponses.js"
import type { RenderedPage } from "./render/Layout.js"
import {
  accessPage,
  confirmSubscriptionForm,
  messagePage,
  type PreferencesNotice,
  preferencesPage,
  unsubscribeForm
} from "./render/Pages.js"
import type { Reading, Visit } from "./state/Site.js"

/** A page for one visitor (a form's answer): never stored by caches. */
// Sent as it is: no ETag or gzip to prepare for a page nobody else reads.
const personalResponse = (page: RenderedPage, status = 200, extra: Record<string, string> = {}) =>
  HttpServerResponse.text(page.html, {
    status,
    contentType: htmlContentType,
    headers: { ...pageHeaders(page), ...extra, "cache-control": "no-store" }
  })

const notFound = HttpServerResponse.text("Not found", { status: 404, headers: commonHeaders })
/** An address under a page's `/api/` that no page answers: the API's error body. */
const apiNotFound = HttpServerResponse.text(
  JSON.stringify({ _tag: "NotFound", message: "No status page has this address" }),
  { status: 404, contentType: "application/json", headers: commonHeaders }
)
const pathOf = (request: HttpServerRequest.HttpServerRequest) => new URL(request.url, "http://localhost").pathname
const notFoundFor = (request: HttpServerRequest.HttpServerRequest) =>
  pathOf(request).includes("/api/") ? apiNotFound : notFound
const unavailable = HttpServerResponse.text(
  "The status page is starting or cannot reach its database. Try again in a moment.",
  {
    status: 503,
    headers: { ...commonHeaders, "retry-after": "5" }
  }
)
/** What a protected page's JSON, feeds, badge and widget answer a reader without access. */
const locked = ({ _tag, message }: Unauthorized) =>
  HttpServerResponse.text(JSON.stringify({ _tag, message }), {
    status: 401,
    contentType: "application/json",
    headers: { ...commonHeaders, ...privateHeaders }
  })

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

/** Why a form's choice of components is refused, in the reader's language. */
const choiceRefusal = (reading: Reading, refusal: "refused" | "tooMany") => {
  const { forms } = messagesFor(reading.locale)
  return refusal === "refused" ? forms.componentsRefused : forms.tooManyComponents(maxChosen)
}

/**
 * Where a reader goes after entering a page's password: the page's own path they came from, else
 * the page. `next` is read as a browser would read it (which drops tabs and newlines and takes `\`
 * for `/`) and kept only when it stays a path of the page on this site: no open redirect, and
 * nothing a header cannot carry.
 */
const returnPath = (reading: Reading, next: string | null) => {
  const home = `${reading.base}/`
  if (next === null || !/^[\x21-\x7e]{1,2000}$/.test(next)) return home
  try {
    const url = new URL(next, "http://page.invalid")
    return url.origin === "http://page.invalid" && url.pathname.startsWith(home) ? url.pathname + url.search : home
  } catch {
    return home
  }
}

/** The addresses of one status page: at the site's root (`""`), or under `/p/:slug`. */
const prefixes = ["", "/p/:slug"] as const

export const PublicRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const pages = yield* PublicPages
    const visits = yield* PageVisits
    const access = yield* PageAccess
    const subscriptions = yield* Subscriptions
    const { publicUrl } = yield* AppConfig
    const secureCookie = publicUrl.startsWith("https:")

    for (const prefix of prefixes) {
      /** The visit the request makes at this prefix. */
      const visitNow = Effect.zipWith(
        HttpServerRequest.HttpServerRequest,
        HttpRouter.params,
        // The slug as the path has it: the router reads `/p/a;b/…` as `/p/a` (no page has a `;`).
        (request, params) =>
          visitOf(request, prefix === "" ? undefined : pathOf(request).split("/")[2] ?? params.slug ?? "")
      )

      /** The page the request reads, as a form's or link's answer shows it; a 404 for an unknown slug. */
      const withReading = <E, R>(
        handle: (reading: Reading, visit: Visit) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
      ) =>
        Effect.flatMap(visitNow, (visit) =>
          pages.reading(visit).pipe(
            Effect.flatMap((reading) => handle(reading, visit)),
            Effect.catchTag("NotFound", () => Effect.map(HttpServerRequest.HttpServerRequest, notFoundFor))
          ))

      /**
       * Answers a cached page or embed of the page the request reads: 404 when there is none (or no
       * such page), 503 before the first snapshot. A protected page without the reader's access
       * answers its password form (`html`) or 401.
       */
      const admitted = <E>(
        serve: (visit: Visit) => Effect.Effect<EncodedPage | CachedResponse | null | undefined, E>,
        kind: "html" | "embed"
      ) =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const visit = yield* visitNow
          const admission = yield* Effect.result(visits.admit(visit, request.cookies))
          if (Result.isFailure(admission)) {
            const refused = admission.failure
            if (refused._tag !== "Unauthorized") return refused._tag === "NotFound" ? notFoundFor(request) : unavailable
            if (kind === "embed") return locked(refused)
            const reading = yield* pages.reading(visit)
            return personalResponse(accessPage(renderOf(reading), { next: pathOf(request) }), 401)
          }
          const found = yield* serve(visit)
          return found ? yield* toHttpResponse(forReader(found, admission.success)) : notFoundFor(request)
        }).pipe(Effect.catch(() => Effect.succeed(unavailable)))

      /** A page answering a form or a link, in the frame of the status page. */
      const answer = (
        reading: Reading,
        options: Parameters<typeof messagePage>[1],
        status: number,
        extra: Record<string, string> = {}
      ) => Effect.succeed(personalResponse(messagePage(renderOf(reading), options), status, extra))

      /** Cross-site form posts are refused, as for the API (docs/api.md). */
      const sameSiteForm = <E, R>(
        handle: (form: URLSearchParams, reading: Reading) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
      ) =>
        withReading((reading) =>
          Effect.gen(function*() {
            const request = yield* HttpServerRequest.HttpServerRequest
            if (isCrossSiteChange(request, publicUrl)) {
              const { forms } = messagesFor(reading.locale)
              return yield* answer(reading, { title: forms.notSentTitle, message: forms.notSent, ok: false }, 403)
            }
            const body = yield* request.text
            return yield* handle(new URLSearchParams(body), reading)
          })
        ).pipe(Effect.catch(() => Effect.succeed(unavailable)))

      yield* router.add("GET", `${prefix}/`, admitted(pages.status, "html"))
      yield* router.add(
        "GET",
        `${prefix}/incidents/:id`,
        Effect.flatMap(
          HttpRouter.params,
          (params) => admitted((visit) => pages.incident(params.id ?? "", visit), "html")
        )
      )
      yield* router.add(
        "GET",
        `${prefix}/maintenance/:id`,
        Effect.flatMap(
          HttpRouter.params,
          (params) => admitted((visit) => pages.maintenance(params.id ?? "", visit), "html")
        )
      )
      const historyPage = (page: string) =>
        /^[1-9]\d{0,5}$/.test(page)
          ? admitted((visit) => pages.history(Number(page), visit), "html")
          : Effect.succeed(notFound)
      yield* router.add(
        "GET",
        `${prefix}/history`,
        Effect.flatMap(
          HttpServerRequest.HttpServerRequest,
          (request) => historyPage(searchParam(request, "page") ?? "1")
        )
      )
      yield* router.add(
        "GET",
        `${prefix}/history/:page`,
        Effect.flatMap(HttpRouter.params, (params) => historyPage(params.page ?? ""))
      )
      yield* router.add(
        "GET",
        `${prefix}/badge.svg`,
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
          admitted((visit) => pages.badge(searchParam(request, "component"), visit), "embed"))
      )
      yield* router.add("GET", `${prefix}/widget.json`, admitted(pages.widget, "embed"))

      // A protected page's password form, and its answer: the reader's access cookie.
      yield* router.add(
        "GET",
        `${prefix}/access`,
        withReading((reading) =>
          Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
            Effect.succeed(
              reading.page.isProtected
                ? personalResponse(
                  accessPage(renderOf(reading), { next: returnPath(reading, searchParam(request, "next") ?? null) })
                )
                : notFound
            ))
        )
      )
      yield* router.add(
        "POST",
        `${prefix}/access`,
        sameSiteForm((form, reading) =>
          Effect.gen(function*() {
            if (!reading.page.isProtected) {
              return notFound
            }
            const request = yield* HttpServerRequest.HttpServerRequest
            const next = returnPath(reading, form.get("next"))
            const client = Option.getOrElse(request.remoteAddress, () =>
              "unknown")
            return yield* access.enter(reading.page, form.get("password") ?? "", client).pipe(
              Effect.map((cookie) =>
                cookie === undefined
                  ? personalResponse(accessPage(renderOf(reading), { next, error: "wrongPassword" }), 401)
                  : HttpServerResponse.empty({
                    status: 303,
                    headers: {
                      ...commonHeaders,
                      location: next,
                      "cache-control": "no-store",
                      "set-cookie": `${pageAccessCookie(reading.page.id)}=${cookie}; Path=/; Max-Age=${
                        Math.floor(Duration.toSeconds(pageAccessMaxAge))
                      }; HttpOnly; SameSite=Lax${secureCookie ? "; Secure" : ""}`
                    }
                  })
              ),
              Effect.catchTag("TooManyRequests", (error) =>
                Effect.succeed(
                  personalResponse(accessPage(renderOf(reading), { next, error: "tooManyTries" }), 429, {
                    "retry-after": String(error.retryAfterSeconds)
                  })
                ))
            )
          })
        )
      )

      yield* router.add(
        "POST",
        `${prefix}/subscribe`,
        sameSiteForm((form, reading) =>
          Effect.gen(function*() {
            const request = yield* HttpServerRequest.HttpServerRequest
            const visit = yield* visitNow
            if (reading.page.isProtected) {
              const allowed = yield* Effect.result(visits.admit(visit, request.cookies))
              if (Result.isFailure(allowed)) {
                return allowed.failure._tag === "Unauthorized" ? locked(allowed.failure) : unavailable
              }
            }
            const given = form.get("email") ?? ""
            const email = decodeEmail(given)
            const chosen = chosenComponents(form, reading.page.state().summary.groups)
            const componentIds = typeof chosen === "string" ? null : chosen
            const refuse = (field: "email" | "componentIds", error: string) =>
              Effect.map(
                pages.statusWithForm(visit, {
                  _tag: "Invalid",
                  field,
                  email: given,
                  componentIds: componentIds ?? [],
                  error
                }),
                (page) => personalResponse(page, 400)
              )
            const { forms } = messagesFor(reading.locale)
            if (Result.isFailure(email)) return yield* refuse("email", forms.invalidEmail)
            if (typeof chosen === "string") return yield* refuse("componentIds", choiceRefusal(reading, chosen))
            const client = Option.getOrElse(request.remoteAddress, () => "unknown")
            return yield* subscriptions.subscribe(email.success, client, componentIds, {
              pageId: reading.page.id,
              locale: reading.locale
            }).pipe(
              // The same answer whatever the address's state, in the reader's language.
              Effect.flatMap(() =>
                pages.statusWithForm(visit, { _tag: "Done", message: forms.subscribeAccepted, ok: true })
              ),
              Effect.map((page) => personalResponse(page)),
              Effect.catchTag("TooManyRequests", (error) =>
                Effect.map(
                  pages.statusWithForm(visit, { _tag: "Done", message: forms.tooManyRequests, ok: false }),
                  (page) => personalResponse(page, 429, { "retry-after": String(error.retryAfterSeconds) })
                )),
              Effect.catchTag("BadRequest", () => refuse("componentIds", forms.componentsRefused))
            )
          })
        )
      )

      const confirmationNotValid = (reading: Reading) =>
        answer(reading, {
          title: messagesFor(reading.locale).forms.linkNotValidTitle,
          message: messagesFor(reading.locale).forms.confirmationNotValid,
          ok: false
        }, 404)

      // The link in the mail shows a button; only its POST confirms, so a scanner that follows links confirms nobody.
      yield* router.add(
        "GET",
        `${prefix}/subscribe/verify/:token`,
        withReading((reading) =>
          Effect.flatMap(HttpRouter.params, (params) => {
            const token = params.token ?? ""
            return subscriptions.isPending(token).pipe(
              Effect.flatMap((pending) =>
                pending
                  ? answer(reading, {
                    title: messagesFor(reading.locale).forms.confirmTitle,
                    message: messagesFor(reading.locale).forms.confirm,
                    ok: true,
                    extra: confirmSubscriptionForm(renderOf(reading), token)
                  }, 200)
                  : confirmationNotValid(reading)
              ),
              Effect.catch(() => Effect.succeed(unavailable))
            )
          })
        )
      )
      yield* router.add(
        "POST",
        `${prefix}/subscribe/verify`,
        sameSiteForm((form, reading) =>
          subscriptions.verify(form.get("token") ?? "").pipe(
            Effect.flatMap((verified) =>
              answer(reading, {
                title: messagesFor(reading.locale).forms.confirmedTitle,
                message: messagesFor(reading.locale).forms.confirmed(verified.email),
                ok: true
              }, 200)
            ),
            Effect.catchTag("NotFound", () => confirmationNotValid(reading))
          )
        )
      )

      const linkNotValid = (reading: Reading) =>
        answer(reading, {
          title: messagesFor(reading.locale).forms.linkNotValidTitle,
          message: messagesFor(reading.locale).forms.linkNotValid,
          ok: false
        }, 404)

      /** The preferences page of a mail's link, in the language the subscriber subscribed in. */
      const preferencesAnswer = (
        reading: Reading,
        subscription: { readonly email: string; readonly locale: Reading["locale"] },
        token: string,
        componentIds: ReadonlyArray<string> | null,
        notice: PreferencesNotice,
        status = 200
      ) =>
        Effect.succeed(
          personalResponse(
            preferencesPage(renderOf({ ...reading, locale: subscription.locale }), {
              email: subscription.email,
              token,
              componentIds,
              notice
            }),
            status
          )
        )

      // The link in every notification mail: the page only reads; its forms post.
      yield* router.add(
        "GET",
        `${prefix}/subscription`,
        withReading((reading) =>
          Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
            const email = decodeEmail(searchParam(request, "email") ?? "")
            const token = searchParam(request, "token") ?? ""
            return (Result.isFailure(email) || token === ""
              ? answer(reading, {
                title: messagesFor(reading.locale).forms.linkNotValidTitle,
                message: messagesFor(reading.locale).forms.linkIncomplete,
                ok: false
              }, 400)
              : subscriptions.preferences(email.success, token).pipe(
                Effect.flatMap((found) =>
                  preferencesAnswer(reading, found, token, found.componentIds, { _tag: "None" })
                ),
                Effect.catchTag("NotFound", () => linkNotValid(reading))
              ))
              .pipe(Effect.catch(() => Effect.succeed(unavailable)))
          })
        )
      )
      /** Saves a subscriber's choice from the preferences form and shows the page again with what was saved. */
      const save = (reading: Reading, email: string, token: string, componentIds: ReadonlyArray<string>) =>
        subscriptions.choose(email, token, componentIds).pipe(
          Effect.andThen(subscriptions.preferences(email, token)),
          Effect.flatMap((saved) => {
            const nameOf = new Map(reading.page.state().components.map((component) => [component.id, component.name]))
            const names = (saved.componentIds ?? []).flatMap((id) => nameOf.get(id) ?? [])
            const { forms, listSeparator } = messagesFor(saved.locale)
            return preferencesAnswer(reading, saved, token, saved.componentIds, {
              _tag: "Saved",
              message: saved.componentIds === null ? forms.savedEvery : forms.savedSome(names.join(listSeparator))
            })
          }),
          Effect.catchTags({
            NotFound: () => linkNotValid(reading),
            BadRequest: () =>
              preferencesAnswer(
                reading,
                { email, locale: reading.locale },
                token,
                componentIds,
                { _tag: "Invalid", error: choiceRefusal(reading, "refused") },
                400
              )
          })
        )

      yield* router.add(
        "POST",
        `${prefix}/subscription`,
        sameSiteForm((form, reading) => {
          // Addresses are stored as EmailAddress normalizes them (trimmed, lower case).
          const email = Result.getOrElse(decodeEmail(form.get("email") ?? ""), () => "")
          const token = form.get("token") ?? ""
          if (form.get("action") === "unsubscribe") {
            return subscriptions.unsubscribe(email, token).pipe(
              Effect.flatMap(() =>
                answer(
                  reading,
                  {
                    title: messagesFor(reading.locale).forms.unsubscribedTitle,
                    message: messagesFor(reading.locale).forms.unsubscribed(email),
                    ok: true
                  },
                  200
                )
              ),
              Effect.catchTag("NotFound", () => linkNotValid(reading))
            )
          }
          const chosen = chosenComponents(form, reading.page.state().summary.groups)
          return typeof chosen === "string"
            ? preferencesAnswer(
              reading,
              { email, locale: reading.locale },
              token,
              [],
              { _tag: "Invalid", error: choiceRefusal(reading, chosen) },
              400
            )
            : save(reading, email, token, chosen)
        })
      )

      yield* router.add(
        "GET",
        `${prefix}/unsubscribe`,
        withReading((reading) =>
          Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
            const email = searchParam(request, "email")
            const token = searchParam(request, "token")
            return email && token
              ? answer(reading, {
                title: messagesFor(reading.locale).forms.unsubscribeTitle,
                message: messagesFor(reading.locale).forms.unsubscribeAsk(email),
                ok: true,
                extra: unsubscribeForm(renderOf(reading), email, token)
              }, 200)
              : answer(reading, {
                title: messagesFor(reading.locale).forms.linkNotValidTitle,
                message: messagesFor(reading.locale).forms.unsubscribeLinkIncomplete,
                ok: false
              }, 400)
          })
        ).pipe(Effect.catch(() => Effect.succeed(unavailable)))
      )
      yield* router.add(
        "POST",
        `${prefix}/unsubscribe`,
        sameSiteForm((form, reading) =>
          // Addresses are stored as EmailAddress normalizes them (trimmed, lower case).
          subscriptions.unsubscribe(
            Result.getOrElse(decodeEmail(form.get("email") ?? ""), () => ""),
            form.get("token") ?? ""
          ).pipe(
            Effect.flatMap(() =>
              answer(
                reading,
                {
                  title: messagesFor(reading.locale).forms.unsubscribedTitle,
                  message: messagesFor(reading.locale).forms.unsubscribed(form.get("email") ?? ""),
                  ok: true
                },
                200
              )
            ),
            Effect.catchTag("NotFound", () =>
              answer(reading, {
                title: messagesFor(reading.locale).forms.notUnsubscribedTitle,
                message: messagesFor(reading.locale).forms.notUnsubscribed,
                ok: false
              }, 404))
          )
        )
      )
    }
  })
)
