import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"

import { TooManyRequests } from "../domain/Errors.js"
import { RequiredRole } from "../domain/Role.js"
import { endpointDocs, groupDocs } from "./Docs.js"
import { Authentication } from "./Security.js"

/** The live event stream's bounds and rhythm (src/http/EventsHttp.ts follows them; docs/api.md, "Live events"). */
export const liveEvents = {
  /** Streams open at once on one instance; one more is refused with 503. */
  maxStreams: 100,
  /**
   * Streams one credential (a member's sessions together, or one API key) holds open at once on an
   * instance; one more is refused with 429, so that no one credential takes every place.
   */
  maxStreamsPerCredential: 10,
  /** Seconds a refused client is told to wait (`Retry-After`). */
  retryAfterSeconds: 5,
  /** What the browser waits before it reconnects, in milliseconds (the stream's `retry:`). */
  reconnectMs: 3000,
  /** At most one `change` event this often, in milliseconds: a burst of changes is merged into one. */
  changeEveryMs: 250,
  /** A comment line this often, in seconds, so that proxies do not cut an idle stream. */
  keepAliveSeconds: 25,
  /**
   * A stream ends after this many minutes, and the browser reconnects: authenticated again, so a
   * session or key that ended meanwhile (signed out, member disabled, key deleted) stops hearing.
   */
  lifetimeMinutes: 15
} as const

export const eventStreamContentType = "text/event-stream"

export class EventsApi extends HttpApiGroup.make("events")
  .add(
    HttpApiEndpoint.get("stream", "/", {
      success: Schema.String.pipe(HttpApiSchema.asText({ contentType: eventStreamContentType })),
      error: TooManyRequests
    })
      .annotate(RequiredRole, "viewer")
      .annotateMerge(endpointDocs(
        "Live changes (server-sent events)",
        "A stream of server-sent events that tells the dashboard when to read again, instead of polling. " +
          `It opens with \`retry: ${liveEvents.reconnectMs}\` and the event \`ready\`, whose data is ` +
          "`{\"version\":<n>}`: the client is (re)connected, and reads what it shows afresh. Then an event " +
          "`change` for each change of the state, whose data says what it touched, any of " +
          "`{\"components\":true,\"incidents\":[\"<id>\",…]|\"all\",\"maintenance\":true,\"organization\":true," +
          "\"monitors\":true}` (`organization` covers the status pages too; `{}`: something no key names); " +
          `changes within ${liveEvents.changeEveryMs} ms of the last event are merged into the next one. A ` +
          `comment line \`: keep-alive\` comes every ${liveEvents.keepAliveSeconds} s. The stream ends after ` +
          `${liveEvents.lifetimeMinutes} minutes (the browser reconnects, authenticated again). Events carry no ` +
          "id: a client that reconnects gets `ready` again and reads afresh.",
        `A member (all their sessions together) or an API key holds at most ${liveEvents.maxStreamsPerCredential} ` +
          "streams open on an instance; one more is answered 429 `TooManyRequests` with `Retry-After`. " +
          `An instance keeps at most ${liveEvents.maxStreams} streams open; one more is answered 503 ` +
          `\`ServiceUnavailable\` with \`Retry-After: ${liveEvents.retryAfterSeconds}\`, as is a stream asked of ` +
          "an instance that is stopping (it ends the streams it has, and the browser reconnects elsewhere). " +
          "With a session cookie, open it as `new EventSource(\"/api/v1/admin/events\")` from the same origin."
      ))
  )
  .middleware(Authentication)
  .prefix("/api/v1/admin/events")
  .annotateMerge(groupDocs(
    "Live changes for the dashboard (admin; an API key or a session is required, else 401): one long-lived " +
      "`text/event-stream` answer that says when the components, incidents, maintenance, organization or " +
      "monitors changed."
  ))
{}
