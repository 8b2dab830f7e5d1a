/**
 * Announces committed changes of what the public sees, and of the monitors' states. In-process
 * readers learn of a change synchronously (`version`) and through a PubSub (each notice with what
 * it touched: the public snapshot, the mirror, the admin API's live events); other instances
 * through PostgreSQL LISTEN/NOTIFY (NOTIFY is sent inside the change's transaction, so it leaves
 * only on commit; `announce` sends its own, for a change committed elsewhere). A notification
 * means "look again": receiving one twice is harmless.
 *
 * A change says what it touches of the public state (`touch`: the components, some incidents,
 * the windows, the organization), and its announcement carries it, in process and in its
 * NOTIFY, so that the read side reads again only that; a change that does not say (or a
 * notification that cannot be read, or listening again after a lost connection) touched
 * everything.
 *
 * Read-your-writes: an in-process read side (the public snapshot) registers with
 * `registerReadSide` how it catches up (a refresh of what was touched since it last looked, or
 * the end of the one under way), and `commit` has it catch up before it returns, so the
 * writer's next read shows its change. The wait ends when the catching up does (finished or
 * failed), not on a timer; the bound is a safety net only. A process without a read side (a
 * worker) does not wait. The embedded PGlite serves this process only, so there is no other
 * instance to tell, and LISTEN/NOTIFY is left out there (it shares one session between
 * connections and only stalls it).
 */
import { randomUUID } from "node:crypto"

import { Context, Effect, Fiber, Layer, Option, PubSub, Schedule, Schema, Stream } from "effect"

import { IdString } from "../domain/Fields.js"
import { orUnavailable } from "../persistence/DatabaseErrors.js"
import { listen, notify } from "../persistence/Notifications.js"
import { RetryingSqlClient } from "../persistence/RetryingSqlClient.js"
import { AppConfig } from "../runtime/Config.js"

const channel = "status_page_changes"

/**
 * More changed incidents than this are read again all at once (two queries) rather than one by
 * one: a burst of changes, or a notice naming many, costs a bounded refresh.
 */
export const maxTouchedIncidents = 16

/**
 * Likewise for components: a change naming its components has only those read again (each
 * write of one component at 500 of them read all 500 before); past this many, all of them.
 */
export const maxTouchedComponents = 16

/**
 * What a change touched: of what the public sees, the components with these ids (or all of them,
 * `true`) with their groups, the incidents with these ids (or all of them), the maintenance
 * windows, the organization's profile
 * (with the status pages); and, for the dashboard only, the monitors' states (`monitors`, which
 * the public side ignores: it sees a monitor through its component). A notice is anyone's who
 * may NOTIFY: its ids are ones PostgreSQL can compare, and few.
 *
 * A key an instance does not know is dropped when it reads a notice (the schema's default for
 * excess properties is to ignore them): an instance of the version before `monitors` reads
 * `{"monitors":true}` as `{}`, a change that touched nothing public; one before component ids
 * cannot read a list of them, so it reads everything again.
 */
export const Touched = Schema.Struct({
  components: Schema.optionalKey(
    Schema.Union([Schema.Boolean, Schema.Array(IdString).check(Schema.isMaxLength(maxTouchedComponents))])
  ),
  incidents: Schema.optionalKey(
    Schema.Union([Schema.Array(IdString).check(Schema.isMaxLength(maxTouchedIncidents)), Schema.Literal("all")])
  ),
  maintenance: Schema.optionalKey(Schema.Boolean),
  organization: Schema.optionalKey(Schema.Boolean),
  monitors: Schema.optionalKey(Schema.Boolean)
})
export type Touched = typeof Touched.Type

export const touchedEverything: Touched = {
  components: true,
  incidents: "all",
  maintenance: true,
  organization: true,
  monitors: true
}

/** Whether a change touched anything the public sees (`monitors` alone is the dashboard's). */
export const touchesPublic = (touched: Touched): boolean =>
  touchesAnyComponent(touched) || touched.incidents !== undefined || touched.maintenance === true ||
  touched.organization === true

/** Whether a change touched some component or all of them. */
export const touchesAnyComponent = (touched: Touched): boolean =>
  touched.components !== undefined && touched.components !== false

/**
 * What two changes named between them, of incidents or components: `all` when either named all
 * of them or the ids together pass `max`, else the ids of both; nothing when neither named any.
 */
const mergeNamed = <All extends true | "all">(
  a: ReadonlyArray<string> | All | false | undefined,
  b: ReadonlyArray<string> | All | false | undefined,
  all: All,
  max: number
): ReadonlyArray<string> | All | undefined => {
  if (a === all || b === all) return all
  if (!Array.isArray(a) && !Array.isArray(b)) return undefined
  const ids = [...new Set([...(Array.isArray(a) ? a : []), ...(Array.isArray(b) ? b : [])])]
  return ids.length > max ? all : ids
}

/** Both changes' touches (past `maxTouchedIncidents` incidents or `maxTouchedComponents` components: all of them). */
export const mergeTouched = (a: Touched, b: Touched): Touched => {
  const components = mergeNamed(a.components, b.components, true, maxTouchedComponents)
  const incidents = mergeNamed(a.incidents, b.incidents, "all", maxTouchedIncidents)
  return {
    ...(components === undefined ? {} : { components }),
    ...(incidents === undefined ? {} : { incidents }),
    ...(a.maintenance === true || b.maintenance === true ? { maintenance: true } : {}),
    ...(a.organization === true || b.organization === true ? { organization: true } : {}),
    ...(a.monitors === true || b.monitors === true ? { monitors: true } : {})
  }
}

/**
 * The change being committed (StateChanges.commit's own; none outside one): what it has said it
 * touched, and what is to run once it has committed (`afterCommit`).
 */
interface Saying {
  touched: Touched | undefined
  readonly afterCommit: Array<Effect.Effect<void>>
}
const Said = Context.Reference<Saying | undefined>("StateChanges/said", { defaultValue: () => undefined })

/**
 * Runs `effect` once the change being committed has committed (at once outside one): what reads
 * the change through another connection (an in-memory index loading again) would not see it
 * before, and on the embedded database, whose one session a transaction holds, would wait for it.
 * A change rolled back runs none of it.
 */
export const afterCommit = (effect: Effect.Effect<void>) =>
  Effect.flatMap(Said, (saying) => saying === undefined ? effect : Effect.sync(() => saying.afterCommit.push(effect)))

/**
 * Says, inside a change that StateChanges.commit runs, what it touches of the public state (said
 * several times: all of it). A change that says nothing touched everything.
 */
export const touch = (touched: Touched) =>
  Effect.flatMap(Said, (saying) =>
    Effect.sync(() => {
      if (saying !== undefined) {
        saying.touched = saying.touched === undefined ? touched : mergeTouched(saying.touched, touched)
      }
    }))

/** `touch`: every component (with their groups). */
export const touchesComponents = touch({ components: true })

/** `touch`: these components (with their groups), and nothing else of them. */
export const touchesComponentsById = (ids: ReadonlyArray<string>) => touch({ components: ids })

/** A NOTIFY's payload: who sent it and what it touched. */
const Notice = Schema.fromJsonString(Schema.Struct({ from: Schema.String, touched: Touched }))
const encodeNotice = Schema.encodeOption(Notice)
const decodeNotice = Schema.decodeUnknownOption(Notice)
/** PostgreSQL refuses payloads of 8,000 bytes and more: a longer list is sent as "everything". */
const maxNotice = 7000

/**
 * Reads a notification. Listening (again) from now on (`undefined`), or a payload that is not a
 * notice of this version (an instance of an older one sends its id alone; anyone may send
 * anything), touched everything.
 */
const readNotice = (payload: string | undefined): { readonly from: string | undefined; readonly touched: Touched } =>
  payload === undefined ? { from: undefined, touched: touchedEverything } : Option.getOrElse(
    decodeNotice(payload),
    () => ({ from: payload, touched: touchedEverything })
  )

/** How long a write's response waits at most for the read side to show it; it never fails the write. */
const appliedWait = "2 seconds"

/**
 * Runs `effect` in a fiber of its own, so that interrupting the caller (a timeout) does not wait
 * for it: the interruption is sent to it and the caller goes on (what v3 called `disconnect`).
 */
const disconnect = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(
      Effect.forkDetach(restore(effect)),
      (fiber) => Effect.onInterrupt(restore(Fiber.join(fiber)), () => Effect.sync(() => fiber.interruptUnsafe()))
    )
  )

export class StateChanges extends Context.Service<StateChanges>()("StateChanges", {
  make: Effect.gen(function*() {
    const sql = yield* RetryingSqlClient
    const { databaseUrl } = yield* AppConfig
    const sharedDatabase = Option.isSome(databaseUrl)
    const instance = randomUUID()
    const pubsub = yield* PubSub.sliding<Touched>(16)
    let version = 0
    /** Each registered read side: how it catches up, and the touches since it last took them. */
    const readSides = new Set<{ readonly catchUp: Effect.Effect<void>; pending: Touched }>()

    /** Announces the next version in process, with what it touched. */
    const bump = (touched: Touched) =>
      Effect.suspend(() => {
        ++version
        for (const side of readSides) side.pending = mergeTouched(side.pending, touched)
        return Effect.asVoid(PubSub.publish(pubsub, touched))
      })

    /**
     * Has every read side catch up with the changes announced so far. Past the bound, the write
     * answers while the catching up goes on (disconnected from the write's fiber). The change has
     * committed: a catching up that dies (a statement the server cancelled) is logged, and the
     * write answers as committed rather than with a 500 a client would send again.
     */
    const awaitApplied = Effect.suspend(() =>
      readSides.size === 0 ? Effect.void : Effect.forEach(readSides, (side) => side.catchUp, { discard: true }).pipe(
        disconnect,
        Effect.timeout(appliedWait),
        Effect.catchDefect((defect) => Effect.logError("Showing a committed change to the public failed", defect)),
        Effect.ignore
      )
    )

    // Another instance's change: NOTIFY from ourselves is skipped, the in-process path covered it.
    // Whenever listening starts again after a lost connection, changes may have been missed
    // meanwhile: readers look again (`undefined`).
    if (Option.isSome(databaseUrl)) {
      yield* listen(databaseUrl.value, channel).pipe(
        Stream.map(readNotice),
        Stream.filter((notice) => notice.from !== instance),
        Stream.runForEach((notice) => bump(notice.touched)),
        Effect.tapCause((cause) => Effect.logWarning("Listening for changes failed; retrying", cause)),
        Effect.retry(Schedule.spaced("1 second")),
        Effect.forkScoped
      )
    }
    const noticeOfEverything = Option.getOrThrow(encodeNotice({ from: instance, touched: touchedEverything }))
    const notifyOthers = (touched: Touched) => {
      if (!sharedDatabase) return Effect.void
      // What a notice cannot carry (too long a list) is sent as everything.
      const payload = encodeNotice({ from: instance, touched }).pipe(
        Option.filter((notice) => notice.length < maxNotice),
        Option.getOrElse(() => noticeOfEverything)
      )
      return notify(sql, channel, payload)
    }

    /**
     * Runs `change` in a transaction that also sends the NOTIFY, tells in-process readers, and
     * returns once the read side shows the change. What the change says it touched (`touch`;
     * everything if it says nothing) is what the read side reads again. Database errors become
     * 503 (connection lost) or defects, as everywhere else.
     */
    const commit = <A, E, R>(change: Effect.Effect<A, E, R>) =>
      Effect.flatMap(Said, (outer) => {
        // A change inside another (an `apply` of a configuration document) is part of it: a
        // savepoint whose touches are the outer change's, announced when that one commits.
        if (outer !== undefined) return orUnavailable(sql.withTransaction(change))
        const saying: Saying = { touched: undefined, afterCommit: [] }
        const touched = () => saying.touched ?? touchedEverything
        // Each try starts afresh: a transaction run again (a deadlock victim) says again what it touches.
        const transaction = sql.withTransaction(Effect.suspend(() => {
          saying.touched = undefined
          saying.afterCommit.length = 0
          return Effect.tap(Effect.provideService(change, Said, saying), () => notifyOthers(touched()))
        }))
        return orUnavailable(transaction).pipe(
          Effect.tap(() => Effect.andThen(bump(touched()), awaitApplied)),
          Effect.tap(() => Effect.forEach(saying.afterCommit, (effect) => effect, { discard: true }))
        )
      })

    /**
     * Announces a change committed without `commit` (ingest's monitor states): to in-process
     * readers at once, and to other instances with a NOTIFY of its own, sent outside any
     * transaction (call it after the change committed). No read side is waited for: nobody's
     * answer hangs on it. It never fails: a NOTIFY that does not go out is logged, and the other
     * instances learn of the state with the next change.
     */
    const announce = (touched: Touched) =>
      Effect.andThen(
        bump(touched),
        notifyOthers(touched).pipe(
          Effect.catch((error) => Effect.logWarning("Announcing a change to other instances failed", error))
        )
      )

    /**
     * Registers an in-process read side for the scope's lifetime, with `catchUp`: what brings it
     * up to the changes announced so far, run by each commit before it returns (it must not
     * fail, and run whole once started). The side takes what changes touched since it last took
     * it, with the version that covers them; what it took and could not apply, it gives back, to
     * be taken with the next changes.
     */
    const registerReadSide = (catchUp: Effect.Effect<void>) =>
      Effect.gen(function*() {
        const side = { catchUp, pending: {} as Touched }
        yield* Effect.acquireRelease(
          Effect.sync(() => readSides.add(side)),
          () => Effect.sync(() => readSides.delete(side))
        )
        return {
          take: () => {
            const touched = side.pending
            side.pending = {}
            return { version, touched }
          },
          giveBack: (touched: Touched) => {
            side.pending = mergeTouched(side.pending, touched)
          }
        } as const
      })

    return {
      commit,
      announce,
      registerReadSide,
      /** Increases with every change this process knows of; a cache built at an older version is stale. */
      version: () => version,
      /** A notice per change, with what it touched; a slow reader loses the oldest (16 kept): "look again" all the same. */
      subscribe: PubSub.subscribe(pubsub)
    } as const
  })
}) {
  static readonly layer = Layer.effect(this, this.make)
}
