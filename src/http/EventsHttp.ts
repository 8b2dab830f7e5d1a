/**
 * The admin API's live events (`GET /api/v1/admin/events`; docs/api.md, "Live events"): one
 * `text/event-stream` answer per client, fed by the notices the public snapshot reads
 * (StateChanges.subscribe, which other instances' changes reach through LISTEN/NOTIFY), so the
 * dashboard reads again when something changed instead of polling.
 *
 * A stream holds a place among `liveEvents.maxStreams` and a subscription for as long as its
 * request lasts: both are taken in the request's scope, which closes when the answer ends (after
 * `liveEvents.lifetimeMinutes`, so that the client is authenticated again), when the client goes
 * away (its request's fiber is interrupted), or when the server stops (`end` ends every stream,
 * before the server waits for its connections to close).
 */
import { Clock, Context, Deferred, Duration, Effect, Layer, PubSub, Queue, Stream } from "effect"
import { HttpEffect, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"

import { Api } from "../api/Api.js"
import { eventStreamContentType, liveEvents } from "../api/EventsApi.js"
import { CurrentPrincipal, type Principal } from "../domain/Auth.js"
import { ServiceUnavailable, TooManyRequests } from "../domain/Errors.js"
import { mergeTouched, StateChanges, type Touched } from "../services/StateChanges.js"
import { withRetryAfter } from "./RetryAfter.js"

/** The first event: how long the browser waits before it reconnects, and `ready` with the version it now knows. */
const readyEvent = (version: number) =>
  `retry: ${liveEvents.reconnectMs}\nevent: ready\ndata: ${JSON.stringify({ version })}\n\n`

/** The stream says `components: true` whichever components a change named, as documented (docs/api.md). */
const changeEvent = ({ components, ...touched }: Touched) =>
  `event: change\ndata: ${
    JSON.stringify(components === undefined || components === false ? touched : { ...touched, components: true })
  }\n\n`

const keepAlive = ": keep-alive\n\n"

const lifetime = Duration.minutes(liveEvents.lifetimeMinutes)

/**
 * The notices of `subscription`, merged: a notice goes out at once when the last went out
 * `everyMs` ago or more, else then, with all that came meanwhile. The subscription is read all the
 * while, so a burst does not fill its buffer (16, oldest dropped) and no touch is lost.
 */
const coalesced = (subscription: PubSub.Subscription<Touched>, everyMs: number): Stream.Stream<Touched> =>
  Stream.unwrap(Effect.gen(function*() {
    let pending: Touched | undefined
    let nextAt = 0
    const arrived = yield* Queue.dropping<void>(1)
    yield* PubSub.takeAll(subscription).pipe(
      Effect.flatMap((notices) => {
        pending = notices.reduce(mergeTouched, pending ?? {})
        return Queue.offer(arrived, undefined)
      }),
      Effect.forever,
      Effect.forkScoped
    )
    // A signal left from notices an earlier event took finds nothing pending: wait for the next.
    const next = Effect.gen(function*() {
      while (true) {
        yield* Queue.take(arrived)
        const wait = nextAt - (yield* Clock.currentTimeMillis)
        if (wait > 0) yield* Effect.sleep(wait)
        if (pending !== undefined) {
          const touched = pending
          pending = undefined
          nextAt = (yield* Clock.currentTimeMillis) + everyMs
          return touched
        }
      }
    })
    return Stream.fromEffectRepeat(next)
  }))

/** The streams open on this instance, and what opens and ends them. */
export class LiveEvents extends Context.Service<LiveEvents>()("LiveEvents", {
  make: Effect.gen(function*() {
    const changes = yield* StateChanges
    let open = 0
    /** Streams open by credential: a member's sessions count together, an API key on its own. */
    const byCredential = new Map<string, number>()
    let stopping = false
    const stopped = yield* Deferred.make<void>()

    const refuse = (message: string) =>
      Effect.andThen(
        HttpEffect.appendPreResponseHandler((_request, response) =>
          Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(liveEvents.retryAfterSeconds)))
        ),
        Effect.fail(new ServiceUnavailable({ message }))
      )

    /**
     * A place among the open streams until the scope closes; none past the caps (the credential's
     * first, so that one credential at its cap cannot be told the server is full), or while the
     * server stops.
     */
    const place = (credential: string) =>
      Effect.acquireRelease(
        Effect.suspend(
          (): Effect.Effect<void, TooManyRequests | ServiceUnavailable, HttpServerRequest.HttpServerRequest> => {
            const held = byCredential.get(credential) ?? 0
            if (stopping) return refuse("The server is stopping; connect again")
            if (held >= liveEvents.maxStreamsPerCredential) {
              return Effect.fail(
                new TooManyRequests({
                  message:
                    `These credentials hold ${liveEvents.maxStreamsPerCredential} event streams open, their most; ` +
                    "close one first",
                  retryAfterSeconds: liveEvents.retryAfterSeconds
                })
              )
            }
            if (open >= liveEvents.maxStreams) {
              return refuse(`The server has ${liveEvents.maxStreams} event streams open, its most; connect again later`)
            }
            return Effect.sync(() => {
              open++
              byCredential.set(credential, held + 1)
            })
          }
        ),
        () =>
          Effect.sync(() => {
            open--
            const held = (byCredential.get(credential) ?? 1) - 1
            if (held === 0) byCredential.delete(credential)
            else byCredential.set(credential, held)
          })
      )

    return {
      /**
       * A client's stream, as the text of its events, for as long as the scope lasts. Subscribed
       * before the version is read: a change after it is in the subscription (one also counted in
       * the version comes twice, which means "look again" all the same).
       */
      connect: (principal: Principal) =>
        Effect.gen(function*() {
          yield* place(principal.method === "session" ? `user:${principal.userId}` : `key:${principal.apiKeyId}`)
          const subscription = yield* changes.subscribe
          const ready = readyEvent(changes.version())
          return Stream.make(ready).pipe(
            Stream.concat(Stream.merge(
              Stream.map(coalesced(subscription, liveEvents.changeEveryMs), changeEvent),
              Stream.tick(`${liveEvents.keepAliveSeconds} seconds`).pipe(Stream.drop(1), Stream.map(() => keepAlive))
            )),
            // Ended after its lifetime, the client connects again and is authenticated again.
            Stream.interruptWhen(Effect.raceFirst(Deferred.await(stopped), Effect.sleep(lifetime))),
            Stream.encodeText
          )
        }),
      /** The streams open now. */
      open: () => open,
      /** Ends every stream, and refuses new ones from now on: the server is stopping. */
      end: Effect.suspend(() => {
        stopping = true
        return Deferred.succeed(stopped, undefined)
      })
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make).pipe(Layer.provide(StateChanges.layer))

  /**
   * Ends the streams when its scope closes: built after the server (in the same scope), it is
   * finalized before it, so the server does not wait for the streams' connections to close.
   */
  static readonly endOnShutdown = Layer.effectDiscard(
    Effect.flatMap(this, (live) => Effect.addFinalizer(() => live.end))
  )
}

export const EventsHttp = HttpApiBuilder.group(Api, "events", (handlers) =>
  Effect.gen(function*() {
    const live = yield* LiveEvents
    return handlers.handle("stream", () =>
      Effect.gen(function*() {
        const events = yield* live.connect(yield* CurrentPrincipal)
        return HttpServerResponse.stream(events, {
          contentType: eventStreamContentType,
          // Neither the browser nor a proxy may keep the stream, and nginx must not buffer it.
          headers: { "cache-control": "no-cache", "x-accel-buffering": "no" }
        })
      }).pipe(withRetryAfter))
  }))
