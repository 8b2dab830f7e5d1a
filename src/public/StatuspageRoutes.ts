/**
 * Statuspage's public API (`/api/v2/summary.json` and the rest, docs/statuspage-compatibility.md)
 * for every page: at the site's root (the default page, or the page whose domain the request's
 * host is) and under `/p/<slug>`. Plain router routes beside the public pages rather than HttpApi
 * endpoints: the contract is Atlassian's, not ours (no place in our OpenAPI document, no strict
 * query: a widget's cache-buster must not be a 400). The fast path answers a public page's
 * documents before these routes; they answer a protected page (after its reader's access, as our
 * own reads), a URL the fast path has nothing current for, and the errors, all open to every
 * origin.
 */
import { Effect, Result } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"

import type { Unauthorized } from "../domain/Errors.js"
import { forReader, PageVisits, privateHeaders, visitOf } from "./PageVisits.js"
import { commonHeaders } from "./PublicPages.js"
import { toHttpResponse } from "./PublicResponses.js"
import { statuspagePaths } from "./StatuspageDocuments.js"
import { openToEveryOrigin, statuspageApi, StatuspageResponses } from "./StatuspageResponses.js"

const errorHeaders = { ...commonHeaders, ...openToEveryOrigin }

/** An error as our API writes it (`_tag`, `message`); Statuspage's clients only read the status. */
const error = (status: number, _tag: string, message: string, headers: Record<string, string> = {}) =>
  HttpServerResponse.text(JSON.stringify({ _tag, message }), {
    status,
    contentType: "application/json",
    headers: { ...errorHeaders, ...headers }
  })

const notFound = error(404, "NotFound", "No status page has this address")
const unavailable = error(
  503,
  "ServiceUnavailable",
  "The status page is starting or cannot reach its database. Try again in a moment.",
  { "retry-after": "5" }
)
const locked = ({ _tag, message }: Unauthorized) => error(401, _tag, message, privateHeaders)

/** The slug as the path has it (the router reads `/p/a;b/…` as `/p/a`; no page has a `;`). */
const slugOf = (request: HttpServerRequest.HttpServerRequest) =>
  new URL(request.url, "http://localhost").pathname.split("/")[2] ?? ""

export const StatuspageRoutes = HttpRouter.use((router) =>
  Effect.gen(function*() {
    const visits = yield* PageVisits
    const responses = yield* StatuspageResponses

    for (const prefix of ["", "/p/:slug"] as const) {
      for (const path of statuspagePaths) {
        yield* router.add(
          "GET",
          `${prefix}${statuspageApi}${path}`,
          Effect.gen(function*() {
            const request = yield* HttpServerRequest.HttpServerRequest
            const visit = visitOf(request, prefix === "" ? undefined : slugOf(request))
            const admission = yield* Effect.result(visits.admit(visit, request.cookies))
            if (Result.isFailure(admission)) {
              const refused = admission.failure
              return refused._tag === "Unauthorized"
                ? locked(refused)
                : refused._tag === "NotFound"
                ? notFound
                : unavailable
            }
            const found = yield* responses.get(path, visit)
            return yield* toHttpResponse(forReader(found, admission.success))
          }).pipe(Effect.catch(() => Effect.succeed(unavailable)))
        )
      }
    }
  })
)
