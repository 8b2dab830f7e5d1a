/**
 * The handlers of the API's public reads: the `status` group (`/api/v1/status` and below, for the
 * default page or the page whose domain the request's host is) and the `pageStatus` group (the
 * same under `/p/:slug`). Each admits the request to its page (PageVisits: 404 for an unknown
 * slug, 401 for a protected page without access) and answers from the room's caches
 * (SnapshotResponses, PublicUptime, PublicResponseTimes), whose responses are encoded once per
 * snapshot or read, as the fast path does.
 */
import { Effect } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { NotFound } from "../domain/Errors.js"
import type { IncidentStatus } from "../domain/Incident.js"
import { defaultResponseTimesPeriod, type ResponseTimesPeriod } from "../domain/ResponseTimes.js"
import { defaultUptimePeriod, type UptimePeriod } from "../domain/Uptime.js"
import { forReader, PageVisits, visitOf } from "./PageVisits.js"
import type { EncodedResponse } from "./PublicResponses.js"
import { toHttpResponse } from "./PublicResponses.js"
import { PublicResponseTimes } from "./PublicResponseTimes.js"
import { PublicUptime } from "./PublicUptime.js"
import { SnapshotResponses } from "./SnapshotResponses.js"
import type { Reading, Visit } from "./state/Site.js"

const statusPath = "/api/v1/status"

/** The reads of one page, by the visit that names it; the same for both groups. */
const pageReads = Effect.gen(function*() {
  const responses = yield* SnapshotResponses
  const uptime = yield* PublicUptime
  const responseTimes = yield* PublicResponseTimes
  const visits = yield* PageVisits

  /** Admits the request to its page, then answers `response`, marked private for a protected page. */
  const respond = <E, R>(
    slug: string | undefined,
    response: (visit: Visit, reading: Reading) => Effect.Effect<EncodedResponse | undefined, E, R>
  ) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const visit = visitOf(request, slug)
      const reading = yield* visits.admit(visit, request.cookies)
      const found = yield* response(visit, reading)
      if (found === undefined) return yield* Effect.die(new Error("The snapshot lacks a public path"))
      return yield* toHttpResponse(forReader(found, reading))
    })

  const path = (slug: string | undefined, suffix: string) =>
    respond(slug, (visit) => responses.cached(`${statusPath}${suffix}`, visit))

  return {
    summary: (slug?: string) => path(slug, ""),
    components: (slug?: string) => path(slug, "/components"),
    maintenance: (slug?: string) => path(slug, "/maintenance"),
    rss: (slug?: string) => path(slug, "/rss"),
    atom: (slug?: string) => path(slug, "/atom"),
    incidents: (
      query: { readonly limit?: number; readonly offset?: number; readonly status?: IncidentStatus },
      slug?: string
    ) => respond(slug, (visit) => responses.incidents(query, visit)),
    incident: (id: string, slug?: string) => respond(slug, (visit) => responses.incident(id, visit)),
    uptime: (period: UptimePeriod | undefined, slug?: string) =>
      respond(slug, (_, { page }) => uptime.get(period ?? defaultUptimePeriod, page)),
    /** A component the page does not show is unknown there. */
    responseTimes: (id: string, period: ResponseTimesPeriod | undefined, slug?: string) =>
      respond(slug, (_, { page }) =>
        page.state().components.some((component) => component.id === id)
          ? responseTimes.get(id, period ?? defaultResponseTimesPeriod)
          : Effect.fail(NotFound.of("Component", id)))
  }
})

/** At the site's root a request always reads a page (the default one, or its host's): no page is unknown there. */
const atRoot = <A, E, R>(read: Effect.Effect<A, E | NotFound, R>) =>
  Effect.catchIf(read, (error): error is NotFound => error instanceof NotFound, Effect.die) as Effect.Effect<
    A,
    Exclude<E, NotFound>,
    R
  >

export const StatusHttp = HttpApiBuilder.group(Api, "status", (handlers) =>
  Effect.map(pageReads, (reads) =>
    handlers
      .handle("summary", () => atRoot(reads.summary()))
      .handle("components", () => atRoot(reads.components()))
      .handle("incidents", ({ query }) => atRoot(reads.incidents(query)))
      .handle("incident", ({ params }) => reads.incident(params.id))
      .handle("maintenance", () => atRoot(reads.maintenance()))
      .handle("rss", () => atRoot(reads.rss()))
      .handle("atom", () => atRoot(reads.atom()))
      .handle("uptime", ({ query }) => atRoot(reads.uptime(query.period)))
      .handle("responseTimes", ({ params, query }) => reads.responseTimes(params.id, query.period))))

export const PageStatusHttp = HttpApiBuilder.group(
  Api,
  "pageStatus",
  (handlers) =>
    Effect.map(pageReads, (reads) =>
      handlers
        .handle("summary", ({ params }) => reads.summary(params.slug))
        .handle("components", ({ params }) => reads.components(params.slug))
        .handle("incidents", ({ params, query }) => reads.incidents(query, params.slug))
        .handle("incident", ({ params }) => reads.incident(params.id, params.slug))
        .handle("maintenance", ({ params }) => reads.maintenance(params.slug))
        .handle("rss", ({ params }) => reads.rss(params.slug))
        .handle("atom", ({ params }) => reads.atom(params.slug))
        .handle("uptime", ({ params, query }) => reads.uptime(query.period, params.slug))
        .handle("responseTimes", ({ params, query }) => reads.responseTimes(params.id, query.period, params.slug)))
)
