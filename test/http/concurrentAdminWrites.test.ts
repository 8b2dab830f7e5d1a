/**
 * Every admin write operation, run concurrently against itself and its neighbours on the same
 * resource, never answers a 5xx, answers only what the contract allows, and leaves a consistent
 * state behind.
 *
 * Why: issue 49, "A deadlock still answers 500". The fuzz suite saw `DELETE
 * /api/v1/admin/webhooks/:id` answer 500 (SqlError: deadlock detected) while another write touched
 * the same webhook. PostgreSQL aborts one side of a deadlock (40P01) or of a serialization failure
 * (40001); the server must run that work again (src/persistence/RetryingSqlClient.ts) and lock rows
 * in a stable order, so the client sees 2xx, or the 404/409/400 the state at that moment calls for,
 * never a 500. Sequential tests cannot see this; only writes racing on the same rows can.
 *
 * What it proves, for a real server over a real PostgreSQL:
 *
 * - Coverage is checked against the API definition itself: every write endpoint (POST, PUT, PATCH,
 *   DELETE) of `Api` is either raced by a scenario below or named in `notExercised` with its
 *   reason, and both lists name only endpoints that exist. An admin write added later fails the
 *   first test until it gets a row here.
 * - Per resource, a fresh one is created, then its write operations (and those of its neighbours:
 *   the resources that name it) run all at once against the same ids, each twice, in three rounds:
 *   the first without the operations that end the resource (delete, cancel, resolve), so updates
 *   race updates on a live resource; the next two with them, so updates race two deletes. Each
 *   request starts a few random ms late, so the deletes land anywhere among the other writes. The
 *   dispatcher runs too, as in production: in the webhook race it sends each round a burst of
 *   deliveries to the webhook (to a loopback receiver) and records them, under the rows the admin
 *   API is updating and deleting, which is where the deadlock of issue 49 was.
 * - Every answer is below 500, its status is one the contract allows for that operation at that
 *   point (the first round: the live resource's; later: also 404 after a delete, 409 where the
 *   contract documents a conflict, 400 for a body naming a component deleted meanwhile, which
 *   docs/api.md makes 400 rather than 404), error bodies are `{ _tag, message }` with the tag of
 *   their status, and success bodies decode with the endpoint's own success schema.
 * - Exactly one of the racing deletes (cancels, resolutions) succeeds, and after the dust settles
 *   the resource reads as gone (404, absent from its list) or as a well-formed resource in the
 *   state the successful writes imply, with no list holding a half-deleted item or a reference to
 *   a deleted one.
 *
 * The interleaving is left to the machine; every assertion holds for any interleaving. Real time
 * (`excludeTestServices`): the requests race on real connections. A race makes a deadlock likely,
 * not certain: PostgreSQL's window for one is often well under a millisecond, so a run that passes
 * proves the absence of a 500 only for the interleavings it met (test/persistence/
 * transactionConflicts.test.ts forces deadlocks deterministically). Set CONCURRENT_WRITES_VERBOSE=1
 * to print the statuses each operation got and PostgreSQL's count of deadlocks so far.
 */
import { expect, layer } from "@effect/vitest"
import { Cause, Effect, Layer, Logger, LogLevel, Result, Schema, type Scope } from "effect"
import { HttpClient } from "effect/http"
import type { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { SqlClient } from "effect/sql"

import { Api } from "../../src/api/Api.js"
import { Dispatcher } from "../../src/workers/Dispatcher.js"
import { logAnnotations, replaceDefaultLogger } from "../support/Logs.js"
import type { Answer } from "../support/Receiver.js"
import { receiver } from "../support/Receiver.js"
import { testConfig } from "../support/TestDatabase.js"
import { Anonymous, ApiClient, sendJson, TestStack } from "../support/TestServer.js"

// ---------------------------------------------------------------------------------------------
// The API's write endpoints, by reflection

type Endpoint = HttpApiEndpoint.Top

const writeMethods: ReadonlySet<string> = new Set(["POST", "PUT", "PATCH", "DELETE"])

/** Every endpoint of the API, as `group.endpoint`. */
const endpoints: ReadonlyMap<string, Endpoint> = new Map(
  (Object.values(Api.groups) as unknown as ReadonlyArray<HttpApiGroup.Top>).flatMap((group) =>
    (Object.values(group.endpoints) as ReadonlyArray<Endpoint>).map((endpoint) =>
      [`${group.identifier}.${endpoint.identifier}`, endpoint] as const
    )
  )
)

const writeEndpoints = [...endpoints].filter(([, endpoint]) => writeMethods.has(endpoint.method))
const isAdmin = (endpoint: Endpoint) => endpoint.path.startsWith("/api/v1/admin/")

const endpointOf = (key: string): Endpoint => {
  const endpoint = endpoints.get(key)
  if (endpoint === undefined) throw new Error(`The API has no endpoint ${key}`)
  return endpoint
}

/**
 * Write endpoints this file does not race, each with why. Public writes are here too, so that a
 * new write endpoint of any kind has to be placed on one side or the other.
 */
const notExercised: Readonly<Record<string, string>> = {
  "auth.signIn": "public, not an admin write: it only creates a session, and it is throttled (5 failures per " +
    "account and address) behind a queue of password checks, so racing it measures the throttle (429)",
  "auth.signOut": "public, not an admin write: it ends the caller's own session, which no admin write touches",
  "subscriptions.subscribe": "public, not an admin write; it only sets up the subscriber raced below, since it is " +
    "rate limited to 3 requests per address and 20 per client address per hour",
  "subscriptions.unsubscribe": "public, not an admin write, and it needs the unsubscribe token that only the " +
    "notification mails carry",
  "subscriptions.oneClickUnsubscribe": "public, not an admin write, and it needs the same mailed token",
  "auth.changePassword": "the caller's own account, from its own session; its race with another change of the " +
    "password is in test/team/ownAccount.test.ts (the new hash is written only over the one proven)",
  "auth.revokeSession": "the caller's own sessions, which no admin write touches",
  "auth.inspectInvitation": "public and read-only",
  "push.post": "public, not an admin write: a push stores at most one run of a slot through ingest, which takes " +
    "the monitor's lock (test/monitoring/pushMonitors.test.ts); the monitor's own writes are raced below",
  "auth.acceptInvitation": "public, needs the mailed token; one use under races is in test/team/invitations.test.ts"
}

// ---------------------------------------------------------------------------------------------
// The table

/** The ids (and API keys) a scenario's setup made, by name. */
type Ids = Readonly<Record<string, string>>

interface Op {
  /** `group.endpoint` of the API: the method and path come from its definition. */
  readonly endpoint: string
  /** Tells apart two rows of the same endpoint (different bodies or credentials). */
  readonly label?: string
  /** The name in `Ids` of the `:id` of the path. */
  readonly target?: string
  readonly query?: string
  /** `n` is unique per request, for names that must differ. */
  readonly body?: (ids: Ids, n: number) => unknown
  /** The name in `Ids` of the API key to send instead of the suite's. */
  readonly as?: string
  /** Requests per round; default `copies`. */
  readonly copies?: number
  /** Each request starts up to this many ms late; default `jitterMs`, or `terminalJitterMs` for a terminal one. */
  readonly jitterMs?: number
  /** Statuses allowed once the resource may have been ended by a terminal operation. */
  readonly allowed: ReadonlyArray<number>
  /** Statuses allowed in the first round, while nothing has ended it; default: the 2xx of `allowed`. */
  readonly whileLive?: ReadonlyArray<number>
  /** Ends the resource (delete, cancel, resolve): left out of the first round. */
  readonly terminal?: true
  /** Exactly one request, among all the operations naming this, succeeds over the whole run. */
  readonly once?: string
  /** At most one does (another operation may end the resource first, e.g. a cascading delete). */
  readonly atMostOnce?: string
}

interface Outcome {
  readonly round: number
  readonly op: Op
  readonly name: string
  readonly method: string
  readonly url: string
  readonly status: number
  readonly body: unknown
}

type Requirements = HttpClient.HttpClient | Anonymous | SqlClient.SqlClient | Scope.Scope

interface Scenario {
  readonly resource: string
  readonly setup: Effect.Effect<Ids, unknown, Requirements>
  readonly ops: ReadonlyArray<Op>
  /** Work that is not an API request, run alongside each round's requests (the dispatcher's, say). */
  readonly alongside?: (ids: Ids, round: number) => Effect.Effect<void, unknown, Requirements>
  /** The state after the dust settles; reads with the typed client, so every resource read must decode. */
  readonly check: (ids: Ids, outcomes: ReadonlyArray<Outcome>) => Effect.Effect<void, unknown, Requirements>
}

const rounds = 3
const copies = 2
/** Each request starts up to this many ms late, so that the deletes land anywhere among the other writes. */
const jitterMs = 40
/** The operations that end the resource start up to this late, so that they also meet the writes' aftermath. */
const terminalJitterMs = 120

const opName = (op: Op) => op.label === undefined ? op.endpoint : `${op.endpoint} (${op.label})`

let sequence = 0
const unique = (prefix: string) => `${prefix} ${++sequence}-${Date.now().toString(36)}`

/** An ISO timestamp `days` from now, whole seconds. */
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().replace(/\.\d{3}Z$/, "Z")

const urlOf = (key: string, id?: string, query?: string) => {
  const endpoint = endpointOf(key)
  const path = endpoint.path.replace(/:(\w+)/g, (_, name: string) => {
    if (name !== "id" || id === undefined) throw new Error(`${key}: no value for :${name}`)
    return encodeURIComponent(id)
  })
  return query === undefined ? path : `${path}?${query}`
}

/** Sends one request of `op` and returns what came back, whatever it is (a transport error as status 0). */
const send = (op: Op, ids: Ids, round: number) =>
  Effect.gen(function*() {
    const endpoint = endpointOf(op.endpoint)
    const idOf = (name: string) => {
      const value = ids[name]
      if (value === undefined) throw new Error(`${opName(op)}: the setup made no ${name}`)
      return value
    }
    const url = urlOf(op.endpoint, op.target === undefined ? undefined : idOf(op.target), op.query)
    const method = endpoint.method as "POST" | "PUT" | "PATCH" | "DELETE"
    const body = op.body?.(ids, ++sequence)
    const request: Effect.Effect<{ readonly status: number; readonly body: unknown }, unknown, Requirements> =
      op.as === undefined
        ? sendJson(method, url, body)
        : Effect.flatMap(Anonymous, (anonymous) =>
          sendJson(method, url, body, { authorization: `Bearer ${idOf(op.as!)}` }).pipe(
            Effect.provideService(HttpClient.HttpClient, anonymous)
          ))
    yield* Effect.sleep(Math.floor(Math.random() * (op.jitterMs ?? (op.terminal ? terminalJitterMs : jitterMs))))
    const response = yield* request.pipe(
      Effect.timeoutOrElse({
        duration: "20 seconds",
        orElse: () =>
          Effect.fail("no answer within 20 s")
      }),
      Effect.catch((error) =>
        Effect.succeed({ status: 0, body: String(error) })
      )
    )
    return { round, op, name: opName(op), method, url, status: response.status, body: response.body } as Outcome
  })

/** Setup helper: a write that must succeed, sent raw through the endpoint's definition. */
const made = (key: string, body: unknown, id?: string) =>
  Effect.gen(function*() {
    const endpoint = endpointOf(key)
    const response = yield* sendJson(endpoint.method as "POST" | "PUT", urlOf(key, id), body)
    if (response.status >= 300) {
      return yield* Effect.die(new Error(`setup ${key} answered ${response.status}: ${JSON.stringify(response.body)}`))
    }
    return response.body as { readonly id: string } & Record<string, unknown>
  })

const http = (url: string) => ({ type: "http", url })

// ---------------------------------------------------------------------------------------------
// Running and judging

const expectedTag: Readonly<Record<number, string>> = {
  400: "BadRequest",
  401: "Unauthorized",
  404: "NotFound",
  409: "Conflict"
}

/** What the contract says is wrong with these outcomes; empty when nothing is. */
const violationsOf = (outcomes: ReadonlyArray<Outcome>): Array<string> => {
  const violations: Array<string> = []
  const where = (o: Outcome) => `round ${o.round} ${o.name} ${o.method} ${o.url}`
  for (const o of outcomes) {
    const allowed = o.round === 1 ? o.op.whileLive ?? o.op.allowed.filter((s) => s < 300) : o.op.allowed
    if (o.status >= 500 || o.status === 0) {
      violations.push(`${where(o)} answered ${o.status}: ${JSON.stringify(o.body)}`)
      continue
    }
    if (!allowed.includes(o.status)) {
      violations.push(`${where(o)} answered ${o.status}, not one of ${allowed.join("/")}: ${JSON.stringify(o.body)}`)
      continue
    }
    if (o.status >= 400) {
      const body = o.body as { readonly _tag?: unknown; readonly message?: unknown }
      if (body?._tag !== expectedTag[o.status] || typeof body.message !== "string") {
        violations.push(`${where(o)} answered ${o.status} with ${JSON.stringify(o.body)}`)
      }
    } else if (o.status !== 204) {
      // The endpoint's success schemas, as JSON codecs (v4 keeps them so).
      const schema = Schema.Union([...endpointOf(o.op.endpoint).success] as Array<Schema.Codec<unknown, unknown>>)
      const decoded = Schema.decodeUnknownResult(schema)(o.body)
      if (Result.isFailure(decoded)) {
        violations.push(`${where(o)} answered a body its schema refuses: ${decoded.failure}`)
      }
    }
  }
  const groups = new Map<string, { readonly exact: boolean; successes: number; ops: Set<string> }>()
  for (const o of outcomes) {
    const group = o.op.once ?? o.op.atMostOnce
    if (group === undefined) continue
    const entry = groups.get(group) ?? { exact: o.op.once !== undefined, successes: 0, ops: new Set<string>() }
    entry.ops.add(o.name)
    if (o.status < 300) entry.successes++
    groups.set(group, entry)
  }
  for (const [group, { exact, ops, successes }] of groups) {
    if (exact ? successes !== 1 : successes > 1) {
      violations.push(`${[...ops].join(", ")} (${group}): ${successes} successes, expected ${exact ? "" : "at most "}1`)
    }
  }
  return violations
}

const tallyOf = (outcomes: ReadonlyArray<Outcome>) => {
  const tally = new Map<string, Map<number, number>>()
  for (const o of outcomes) {
    const statuses = tally.get(o.name) ?? new Map<number, number>()
    statuses.set(o.status, (statuses.get(o.status) ?? 0) + 1)
    tally.set(o.name, statuses)
  }
  return [...tally].map(([name, statuses]) =>
    `${name}: ${[...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}x${n}`).join(" ")}`
  ).join("\n")
}

const race = (scenario: Scenario) =>
  Effect.gen(function*() {
    const started = Date.now()
    serverErrors.splice(0)
    const ids = yield* scenario.setup
    const outcomes: Array<Outcome> = []
    for (let round = 1; round <= rounds; round++) {
      const ops = round === 1 ? scenario.ops.filter((op) => op.terminal === undefined) : scenario.ops
      const requests = ops.flatMap((op) => Array.from({ length: op.copies ?? copies }, () => op))
      const [answered] = yield* Effect.all([
        Effect.forEach(requests, (op) => send(op, ids, round), { concurrency: "unbounded" }),
        scenario.alongside?.(ids, round) ?? Effect.void
      ], { concurrency: "unbounded" })
      outcomes.push(...answered)
    }
    const tally = tallyOf(outcomes)
    if (process.env.CONCURRENT_WRITES_VERBOSE) {
      // PostgreSQL's count of deadlocks in this database so far (its statistics may lag by a second).
      const sql = yield* SqlClient.SqlClient
      const deadlocks = yield* sql<{ deadlocks: number }>`
        select deadlocks from pg_stat_database where datname = current_database()`.pipe(Effect.orElseSucceed(() => []))
      console.log(
        `${scenario.resource}: ${outcomes.length} requests in ${Date.now() - started} ms, ` +
          `deadlocks so far: ${deadlocks[0]?.deadlocks ?? "?"}\n${tally}`
      )
    }
    const failed = outcomes.filter((o) => o.status >= 500 || o.status === 0)
    expect(
      failed.map((o) =>
        `round ${o.round} ${o.name} ${o.method} ${o.url} answered ${o.status}: ${JSON.stringify(o.body)}`
      ),
      `${tally}\n\nThe server's log of its 5xx answers:\n${serverErrors.splice(0).join("\n") || "(none)"}`
    ).toEqual([])
    expect(violationsOf(outcomes), tally).toEqual([])
    yield* scenario.check(ids, outcomes)
  })

const successes = (outcomes: ReadonlyArray<Outcome>, name: string) =>
  outcomes.filter((o) => o.name === name && o.status < 300)

// ---------------------------------------------------------------------------------------------
// The scenarios, one per resource

const components: Scenario = {
  resource: "components",
  setup: Effect.map(made("components.create", { name: unique("Racing component") }), (c) => ({ component: c.id })),
  ops: [
    {
      endpoint: "components.update",
      target: "component",
      body: (_, n) => ({ description: `edit ${n}` }),
      allowed: [200, 404]
    },
    {
      endpoint: "components.update",
      label: "visibility",
      target: "component",
      body: (_, n) => ({ isPublic: n % 2 === 0, displayOrder: n }),
      allowed: [200, 404]
    },
    {
      endpoint: "components.setStatus",
      target: "component",
      body: (_, n) => ({ status: n % 2 === 0 ? "degraded" : "major_outage" }),
      allowed: [200, 404]
    },
    // A configuration naming it by its id, applied and imported: its update goes through the same
    // service; once it is deleted, the key names nothing and a new component is made.
    {
      endpoint: "configuration.apply",
      body: (ids, n) => ({ document: { version: 1, components: [{ key: ids.component, name: `Applied ${n}` }] } }),
      allowed: [200, 404]
    },
    {
      endpoint: "configuration.import",
      body: (ids, n) => ({
        bundle: { configuration: { version: 1, components: [{ key: ids.component, name: `Imported ${n}` }] } }
      }),
      allowed: [200, 404]
    },
    // A neighbour: new components take the place after the last one, which this one's order moves.
    { endpoint: "components.create", body: () => ({ name: unique("Neighbour") }), allowed: [201] },
    { endpoint: "components.remove", target: "component", terminal: true, once: "delete", allowed: [204, 404] }
  ],
  check: (ids) =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      expect((yield* client.components.list({ query: {} })).map((c) => c.id)).not.toContain(ids.component)
      expect((yield* sendJson("PUT", urlOf("components.update", ids.component), {})).status).toBe(404)
    })
}

const componentGroups: Scenario = {
  resource: "component groups",
  setup: Effect.gen(function*() {
    const group = yield* made("componentGroups.create", { name: unique("Racing group") })
    const member = yield* made("components.create", { name: unique("Member"), groupId: group.id })
    return { group: group.id, member: member.id }
  }),
  ops: [
    {
      endpoint: "componentGroups.update",
      target: "group",
      body: (_, n) => ({ description: `edit ${n}`, isPublic: n % 2 === 0 }),
      allowed: [200, 404]
    },
    { endpoint: "componentGroups.create", body: () => ({ name: unique("Neighbour group") }), allowed: [201] },
    // Neighbours that name the group: an unknown groupId is 404.
    {
      endpoint: "components.update",
      label: "join the group",
      target: "member",
      body: (ids) => ({ groupId: ids.group }),
      allowed: [200, 404]
    },
    {
      endpoint: "components.create",
      label: "in the group",
      body: (ids) => ({ name: unique("Grouped"), groupId: ids.group }),
      allowed: [201, 404]
    },
    { endpoint: "componentGroups.remove", target: "group", terminal: true, once: "delete", allowed: [204, 404] }
  ],
  check: (ids) =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      expect((yield* client.componentGroups.list({ query: {} })).map((g) => g.id)).not.toContain(ids.group)
      const listed = yield* client.components.list({ query: {} })
      expect(listed.filter((c) => c.groupId === ids.group).map((c) => c.name), "members of the deleted group")
        .toEqual([])
      expect(listed.find((c) => c.id === ids.member)?.groupId).toBeNull()
    })
}

/** A unique slug: lower case, digits and hyphens. */
const slugOf = (prefix: string) => `${prefix}-${++sequence}-${Date.now().toString(36)}`

const statusPages: Scenario = {
  resource: "status pages",
  setup: Effect.gen(function*() {
    const component = yield* made("components.create", { name: unique("Paged") })
    const group = yield* made("componentGroups.create", { name: unique("Paged group") })
    const page = yield* made("statusPages.create", {
      slug: slugOf("racing"),
      items: [{ type: "component", id: component.id }]
    })
    return { page: page.id, component: component.id, group: group.id }
  }),
  ops: [
    // Its items name the group, which a neighbour deletes: 400 once it is gone.
    {
      endpoint: "statusPages.update",
      target: "page",
      body: (ids, n) => ({
        title: `edit ${n}`,
        items: [{ type: "group", id: ids.group }, { type: "component", id: ids.component }]
      }),
      allowed: [200, 400, 404]
    },
    {
      endpoint: "statusPages.update",
      label: "audience",
      target: "page",
      body: (_, n) => n % 2 === 0 ? { audience: "protected", password: `password ${n}` } : { audience: "public" },
      allowed: [200, 404]
    },
    // A neighbour made the default takes it from whichever page has it meanwhile.
    {
      endpoint: "statusPages.create",
      label: "the default",
      body: () => ({ slug: slugOf("default"), isDefault: true }),
      allowed: [201]
    },
    { endpoint: "componentGroups.remove", target: "group", terminal: true, once: "group", allowed: [204, 404] },
    { endpoint: "statusPages.remove", target: "page", terminal: true, once: "delete", allowed: [204, 404] }
  ],
  check: (ids) =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const pages = yield* client.statusPages.list({ query: { limit: 1000 } })
      expect(pages.map((page) => page.id)).not.toContain(ids.page)
      expect(pages.filter((page) => page.isDefault)).toHaveLength(1)
    })
}

const monitors: Scenario = {
  resource: "monitors",
  setup: Effect.gen(function*() {
    const component = yield* made("components.create", { name: unique("Monitored") })
    const monitor = yield* made("monitors.create", {
      componentId: component.id,
      ...http("http://127.0.0.1:9/health")
    })
    return { component: component.id, monitor: monitor.id }
  }),
  ops: [
    {
      endpoint: "monitors.update",
      target: "monitor",
      body: (_, n) => ({ intervalSeconds: 60 + n % 2 * 60, failureThreshold: 1 + n % 3 }),
      allowed: [200, 404]
    },
    {
      endpoint: "monitors.update",
      label: "target",
      target: "monitor",
      body: (_, n) => ({ url: `http://127.0.0.1:9/health/${n}`, degradedAboveMs: 500 }),
      allowed: [200, 404]
    },
    { endpoint: "monitors.pause", target: "monitor", allowed: [200, 404] },
    { endpoint: "monitors.resume", target: "monitor", allowed: [200, 404] },
    // Neighbours on the component whose status the monitors decide.
    {
      endpoint: "monitors.create",
      body: (ids) => ({ componentId: ids.component, ...http("http://127.0.0.1:9/other") }),
      allowed: [201]
    },
    {
      endpoint: "components.setStatus",
      target: "component",
      body: () => ({ status: "partial_outage" }),
      allowed: [200]
    },
    { endpoint: "monitors.remove", target: "monitor", terminal: true, once: "delete", allowed: [204, 404] }
  ],
  check: (ids) =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const listed = yield* client.monitors.list({ query: {} })
      expect(listed.map((m) => m.id)).not.toContain(ids.monitor)
      expect(listed.filter((m) => m.componentId === ids.component)).toHaveLength(copies * rounds)
      expect((yield* sendJson("PUT", urlOf("monitors.update", ids.monitor), {})).status).toBe(404)
      expect((yield* client.components.list({ query: {} })).map((c) => c.id)).toContain(ids.component)
    })
}

/** A push monitor's token rotated while its grace is edited, it is paused and resumed, and deleted. */
const pushMonitors: Scenario = {
  resource: "push monitors",
  setup: Effect.gen(function*() {
    const component = yield* made("components.create", { name: unique("Heartbeat") })
    const monitor = yield* made("monitors.create", { componentId: component.id, type: "push" })
    return { component: component.id, monitor: monitor.id }
  }),
  ops: [
    { endpoint: "monitors.rotatePushToken", target: "monitor", allowed: [200, 404] },
    {
      endpoint: "monitors.update",
      label: "grace",
      target: "monitor",
      body: (_, n) => ({ graceSeconds: 5 + n % 20 }),
      allowed: [200, 404]
    },
    { endpoint: "monitors.pause", target: "monitor", allowed: [200, 404] },
    { endpoint: "monitors.resume", target: "monitor", allowed: [200, 404] },
    { endpoint: "monitors.remove", target: "monitor", terminal: true, once: "delete", allowed: [204, 404] }
  ],
  check: (ids) =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      expect((yield* client.monitors.list({ query: {} })).map((m) => m.id)).not.toContain(ids.monitor)
      expect((yield* sendJson("POST", urlOf("monitors.rotatePushToken", ids.monitor))).status).toBe(404)
    })
}

const incidents: Scenario = {
  resource: "incidents and their updates",
  setup: Effect.gen(function*() {
    const component = yield* made("components.create", { name: unique("Affected") })
    const incident = yield* made("incidents.create", {
      title: "Racing incident",
      message: "Looking into it",
      componentIds: [component.id],
      published: false
    })
    return { component: component.id, incident: incident.id }
  }),
  ops: [
    {
      endpoint: "incidents.update",
      target: "incident",
      body: (_, n) => ({ title: `Racing incident, edit ${n}`, severity: n % 2 === 0 ? "major" : "critical" }),
      allowed: [200]
    },
    // A resolved incident is final: naming a status is then 409.
    {
      endpoint: "incidents.update",
      label: "status",
      target: "incident",
      body: () => ({ status: "identified" }),
      allowed: [200, 409]
    },
    {
      endpoint: "incidents.addUpdate",
      target: "incident",
      body: (ids, n) => ({
        status: "monitoring",
        message: `Update ${n}`,
        componentStatuses: { [ids.component]: "degraded" }
      }),
      allowed: [201, 409]
    },
    { endpoint: "incidents.publish", target: "incident", allowed: [200] },
    // Not resolved yet: 409.
    {
      endpoint: "incidents.setPostmortem",
      target: "incident",
      body: (_, n) => ({ body: `What happened, take ${n}`, published: true }),
      whileLive: [409],
      allowed: [200, 409]
    },
    // Neighbours: another incident and a status change on the same component.
    {
      endpoint: "incidents.create",
      body: (ids, n) => ({ title: `Neighbour ${n}`, message: "Also broken", componentIds: [ids.component] }),
      allowed: [201]
    },
    {
      endpoint: "components.setStatus",
      target: "component",
      body: () => ({ status: "major_outage" }),
      allowed: [200]
    },
    {
      endpoint: "incidents.resolve",
      target: "incident",
      body: (_, n) => ({ message: `Fixed (${n})`, restoreComponents: true }),
      terminal: true,
      once: "resolve",
      allowed: [200, 409]
    },
    {
      endpoint: "incidents.addUpdate",
      label: "resolving",
      target: "incident",
      body: (_, n) => ({ status: "resolved", message: `Resolved by update ${n}` }),
      terminal: true,
      once: "resolve",
      allowed: [201, 409]
    }
  ],
  check: (ids, outcomes) =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const incident = yield* client.incidents.get({ params: { id: ids.incident as never } })
      expect(incident).toMatchObject({ status: "resolved", published: true })
      expect(incident.resolvedAt).not.toBeNull()
      // No write lost or doubled: the first entry, one per accepted update, and one resolution, last.
      const accepted = successes(outcomes, "incidents.addUpdate").length
      expect(incident.updates).toHaveLength(1 + accepted + 1)
      expect(incident.updates.filter((u) => u.status === "resolved")).toHaveLength(1)
      expect(incident.updates.at(-1)?.status).toBe("resolved")
      const postmortems = successes(outcomes, "incidents.setPostmortem").length
      expect(incident.postmortem === null, "postmortem written iff a PUT was accepted").toBe(postmortems === 0)
      expect((yield* client.incidents.list({ query: {} })).filter((i) => i.id === ids.incident)).toHaveLength(1)
    })
}

const maintenance: Scenario = {
  resource: "maintenance",
  setup: Effect.gen(function*() {
    const component = yield* made("components.create", { name: unique("Maintained") })
    const window = yield* made("maintenance.create", {
      title: "Racing window",
      scheduledStart: inDays(2),
      scheduledEnd: inDays(2.1),
      componentIds: [component.id]
    })
    return { component: component.id, window: window.id }
  }),
  ops: [
    // A cancelled window cannot change: 409.
    {
      endpoint: "maintenance.update",
      target: "window",
      body: (_, n) => ({ title: `Racing window, edit ${n}`, description: `take ${n}` }),
      allowed: [200, 409]
    },
    {
      endpoint: "maintenance.update",
      label: "moved",
      target: "window",
      body: (_, n) => ({ scheduledStart: inDays(3 + n % 2), scheduledEnd: inDays(3.1 + n % 2) }),
      allowed: [200, 409]
    },
    {
      endpoint: "maintenance.update",
      label: "components",
      target: "window",
      body: (ids, n) => ({ componentIds: n % 2 === 0 ? [] : [ids.component] }),
      allowed: [200, 409]
    },
    {
      endpoint: "maintenance.create",
      body: (ids, n) => ({
        title: `Neighbour window ${n}`,
        scheduledStart: inDays(4),
        scheduledEnd: inDays(4.1),
        componentIds: [ids.component]
      }),
      allowed: [201]
    },
    // Cancelling a cancelled window is 409; on a one-off window `?series=true` is a plain cancel.
    { endpoint: "maintenance.cancel", target: "window", terminal: true, once: "cancel", allowed: [204, 409] },
    {
      endpoint: "maintenance.cancel",
      label: "series",
      target: "window",
      query: "series=true",
      terminal: true,
      once: "cancel",
      allowed: [204, 409]
    }
  ],
  check: (ids) =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      expect(yield* client.maintenance.get({ params: { id: ids.window as never } })).toMatchObject({
        status: "cancelled"
      })
      expect((yield* client.maintenance.list({ query: {} })).filter((w) => w.id === ids.window)).toHaveLength(1)
    })
}

/**
 * Answers 200 a little later (10 to 300 ms), so that test sends and the dispatcher's deliveries are
 * still in flight, and their attempts still to be recorded, while the webhook is written.
 */
const answerSoon: Answer = (_, response) => {
  setTimeout(() => {
    response.writeHead(200, { "content-type": "text/plain" })
    response.end("ok")
  }, 10 + Math.floor(Math.random() * 290))
}

/** Events added to the outbox at the start of each round of the webhook race. */
const eventBurst = 30
/** The webhook's toggles and deletes start up to this late: while the round's deliveries are answered and recorded. */
const webhookJitterMs = 400

const incidentFor = (n: number) => ({ title: `Delivered ${n}`, message: "Goes to every webhook", severity: "minor" })

const webhooks: Scenario = {
  resource: "webhooks",
  setup: Effect.gen(function*() {
    const target = yield* receiver(answerSoon)
    const webhook = yield* made("webhooks.create", { name: unique("Racing hook"), url: target.url, type: "generic" })
    // A published incident: the dispatcher delivers it to the webhook while the race starts.
    yield* made("incidents.create", incidentFor(0))
    return { webhook: webhook.id, url: target.url }
  }),
  // A burst of events for the dispatcher each round: copies of the newest incident.created, one more
  // delivery each to the webhook, sent and then recorded (deliveries locked, attempts logged under the
  // webhook, its counters updated) while the round's writes and deletes run. The round's incidents
  // wake the dispatcher.
  alongside: () =>
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql`insert into outbox_events (event, payload, component_ids)
          select latest.event, latest.payload, latest.component_ids
          from (select event, payload, component_ids from outbox_events
                where event = 'incident.created' order by id desc limit 1) latest
          cross join generate_series(1, ${eventBurst})`),
  ops: [
    {
      endpoint: "webhooks.update",
      target: "webhook",
      body: (_, n) => ({ name: `Racing hook ${n}`, notifyOnMaintenance: n % 2 === 0 }),
      allowed: [200, 404]
    },
    {
      endpoint: "webhooks.update",
      label: "own type and filter",
      target: "webhook",
      body: (_, n) => ({ type: "generic", componentIds: n % 2 === 0 ? null : [`component-${n}`] }),
      allowed: [200, 404]
    },
    // Late in the round, as the delete: a paused webhook is sent nothing, so the dispatcher's deliveries
    // go out while it is active, and the pause (which cancels the waiting ones) meets them too.
    { endpoint: "webhooks.toggle", target: "webhook", jitterMs: webhookJitterMs, allowed: [200, 404] },
    // An event for every active webhook: the dispatcher locks the deliveries, records the attempt
    // under the webhook and updates its counters, the cycle the delete of issue 49 closed.
    { endpoint: "incidents.create", label: "delivered", body: (_, n) => incidentFor(n), allowed: [201] },
    // Sends to the loopback receiver and logs the attempt under the webhook, which may be going.
    { endpoint: "webhooks.test", target: "webhook", allowed: [200, 404] },
    {
      endpoint: "webhooks.create",
      // Paused: the events go to the raced webhooks only.
      body: (ids) => ({ name: unique("Neighbour hook"), url: ids.url, type: "chat_a", isActive: false }),
      allowed: [201]
    },
    // Spread over the round, while the dispatcher sends the round's deliveries and records them.
    {
      endpoint: "webhooks.remove",
      target: "webhook",
      terminal: true,
      jitterMs: webhookJitterMs,
      once: "delete",
      allowed: [204, 404]
    }
  ],
  check: (ids) =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      expect((yield* client.webhooks.list({ query: {} })).map((w) => w.id)).not.toContain(ids.webhook)
      const deliveries = yield* sendJson("GET", urlOf("webhooks.deliveries", ids.webhook))
      expect(deliveries.status).toBe(404)
    })
}

const incidentTemplates: Scenario = {
  resource: "incident templates",
  setup: Effect.gen(function*() {
    const component = yield* made("components.create", { name: unique("Templated") })
    const name = unique("Racing template")
    const template = yield* made("incidentTemplates.create", {
      name,
      title: "Database down",
      message: "We are looking into it",
      componentIds: [component.id]
    })
    const monitor = yield* made("monitors.create", { componentId: component.id, ...http("http://127.0.0.1:9/t") })
    return { component: component.id, template: template.id, name, monitor: monitor.id, duplicate: unique("Dup") }
  }),
  ops: [
    {
      endpoint: "incidentTemplates.update",
      target: "template",
      body: (_, n) => ({ title: `Database down (${n})`, severity: n % 2 === 0 ? "major" : "critical" }),
      allowed: [200, 404]
    },
    // Its own name (another case of it) is no conflict.
    {
      endpoint: "incidentTemplates.update",
      label: "own name",
      target: "template",
      body: (ids, n) => ({ name: n % 2 === 0 ? ids.name : ids.name.toUpperCase(), componentIds: [ids.component] }),
      allowed: [200, 404]
    },
    // Two creations under one name: one 201 over the whole run, every other 409.
    {
      endpoint: "incidentTemplates.create",
      label: "same name",
      body: (ids, n) => ({ name: ids.duplicate, title: `Dup ${n}`, message: "Same name" }),
      once: "same name",
      allowed: [201, 409],
      whileLive: [201, 409]
    },
    {
      endpoint: "incidentTemplates.create",
      body: () => ({ name: unique("Neighbour template"), title: "Other", message: "Other" }),
      allowed: [201]
    },
    // Neighbours that name the template: an unknown one is 404.
    {
      endpoint: "incidents.create",
      label: "from the template",
      body: (ids) => ({ templateId: ids.template }),
      allowed: [201, 404]
    },
    {
      endpoint: "monitors.update",
      label: "incident template",
      target: "monitor",
      body: (ids) => ({ incidentPolicy: "draft", incidentTemplateId: ids.template }),
      allowed: [200, 404]
    },
    {
      endpoint: "incidentTemplates.remove",
      target: "template",
      terminal: true,
      once: "delete",
      allowed: [204, 404]
    }
  ],
  check: (ids) =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const listed = yield* client.incidentTemplates.list({ query: {} })
      expect(listed.map((t) => t.id)).not.toContain(ids.template)
      expect(listed.filter((t) => t.name.toLowerCase() === ids.duplicate.toLowerCase())).toHaveLength(1)
      const monitor = (yield* client.monitors.list({ query: {} })).find((m) => m.id === ids.monitor)
      expect(monitor?.incidentTemplateId ?? null, "no monitor names the deleted template").toBeNull()
    })
}

const apiKeys: Scenario = {
  resource: "API keys",
  setup: Effect.map(
    made("apiKeys.create", { name: unique("Racing key") }),
    (created) => ({ apiKey: created.id, key: created.key as string })
  ),
  ops: [
    // Deleting the key a request authenticates with is 409; once it is gone, that key is 401.
    {
      endpoint: "apiKeys.remove",
      label: "with itself",
      target: "apiKey",
      as: "key",
      whileLive: [409],
      allowed: [409, 401]
    },
    // A write authenticated by the key being deleted (and its lastUsedAt written).
    {
      endpoint: "apiKeys.create",
      label: "with the racing key",
      as: "key",
      body: () => ({ name: unique("Made by the racing key") }),
      allowed: [201, 401]
    },
    { endpoint: "apiKeys.create", body: () => ({ name: unique("Neighbour key") }), allowed: [201] },
    { endpoint: "apiKeys.remove", target: "apiKey", terminal: true, once: "delete", allowed: [204, 404] }
  ],
  check: (ids) =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      expect((yield* client.apiKeys.list({ query: {} })).map((k) => k.id)).not.toContain(ids.apiKey)
      const anonymous = yield* Anonymous
      const refused = yield* sendJson("GET", urlOf("apiKeys.list"), undefined, { authorization: `Bearer ${ids.key}` })
        .pipe(Effect.provideService(HttpClient.HttpClient, anonymous))
      expect(refused.status).toBe(401)
    })
}

const subscribers: Scenario = {
  resource: "subscribers",
  setup: Effect.gen(function*() {
    const component = yield* made("components.create", { name: unique("Subscribed") })
    const email = `racer-${Date.now().toString(36)}@example.test`
    const subscribed = yield* sendJson("POST", urlOf("subscriptions.subscribe"), {
      email,
      componentIds: [component.id]
    })
    expect(subscribed.status).toBe(202)
    const listed = yield* sendJson("GET", "/api/v1/admin/subscribers")
    const subscriber = (listed.body as ReadonlyArray<{ id: string; email: string }>).find((s) => s.email === email)
    expect(subscriber).toBeDefined()
    return { subscriber: subscriber!.id, component: component.id }
  }),
  ops: [
    { endpoint: "subscribers.remove", target: "subscriber", terminal: true, once: "delete", allowed: [204, 404] },
    // The component it chose, which its list of components names.
    {
      endpoint: "components.update",
      target: "component",
      body: (_, n) => ({ isPublic: n % 2 === 0 }),
      allowed: [200, 404]
    },
    {
      endpoint: "components.remove",
      target: "component",
      terminal: true,
      once: "component",
      allowed: [204, 404]
    }
  ],
  check: (ids) =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const listed = yield* client.subscribers.list({ query: {} })
      expect(listed.map((s) => s.id)).not.toContain(ids.subscriber)
      expect(listed.filter((s) => s.componentIds?.includes(ids.component))).toEqual([])
    })
}

const organization: Scenario = {
  resource: "organization",
  setup: Effect.map(
    sendJson("GET", "/api/v1/admin/org"),
    (response) => ({ organization: (response.body as { id: string }).id })
  ),
  ops: [
    {
      endpoint: "organization.update",
      target: "organization",
      body: (_, n) => ({ name: `Racing status ${n % 2}` }),
      allowed: [200]
    },
    {
      endpoint: "organization.update",
      label: "look",
      target: "organization",
      body: (_, n) => ({ brandColor: n % 2 === 0 ? "#2563eb" : "#16a34a", logoUrl: null }),
      allowed: [200]
    },
    // The same update at the address it is read from.
    {
      endpoint: "organization.updateCurrent",
      label: "current",
      body: (_, n) => ({ name: `Racing status ${n % 2}` }),
      allowed: [200]
    },
    {
      endpoint: "organization.update",
      label: "reminders",
      target: "organization",
      body: (_, n) => ({ maintenanceReminderHours: 12 + n % 2, timezone: "UTC" }),
      allowed: [200]
    },
    // A window scheduled while the reminder hours change.
    {
      endpoint: "maintenance.create",
      body: (_, n) => ({ title: `Reminded ${n}`, scheduledStart: inDays(0.5), scheduledEnd: inDays(0.6) }),
      allowed: [201]
    }
  ],
  check: (ids) =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const organization = yield* client.organization.get()
      expect(organization.id).toBe(ids.organization)
      expect(["Racing status 0", "Racing status 1"]).toContain(organization.name)
      expect([12, 13]).toContain(organization.maintenanceReminderHours)
    })
}

/**
 * A component deleted while everything that names it is written: its group, its monitors, an
 * incident, a window, a template and a webhook's filter. Bodies naming it are 400 once it is gone
 * (docs/api.md: unknown ids in a body), a monitor's `componentId` 404.
 */
const componentNeighbours: Scenario = {
  resource: "a component and everything that names it",
  setup: Effect.gen(function*() {
    const group = yield* made("componentGroups.create", { name: unique("Doomed group") })
    const component = yield* made("components.create", { name: unique("Doomed"), groupId: group.id })
    const monitor = yield* made("monitors.create", { componentId: component.id, ...http("http://127.0.0.1:9/d") })
    const template = yield* made("incidentTemplates.create", {
      name: unique("Doomed template"),
      title: "Down",
      message: "Down",
      componentIds: [component.id]
    })
    const incident = yield* made("incidents.create", {
      title: "Doomed incident",
      message: "Down",
      componentIds: [component.id]
    })
    const window = yield* made("maintenance.create", {
      title: "Doomed window",
      scheduledStart: inDays(5),
      scheduledEnd: inDays(5.1),
      componentIds: [component.id]
    })
    const webhook = yield* made("webhooks.create", {
      name: unique("Filtered hook"),
      url: "http://127.0.0.1:9/hook",
      type: "chat_b",
      componentIds: [component.id]
    })
    return {
      group: group.id,
      component: component.id,
      monitor: monitor.id,
      template: template.id,
      incident: incident.id,
      window: window.id,
      webhook: webhook.id
    }
  }),
  ops: [
    { endpoint: "components.remove", target: "component", terminal: true, once: "component", allowed: [204, 404] },
    { endpoint: "componentGroups.remove", target: "group", terminal: true, once: "group", allowed: [204, 404] },
    // Deleting the component deletes its monitors: this may find it gone already.
    { endpoint: "monitors.remove", target: "monitor", terminal: true, atMostOnce: "monitor", allowed: [204, 404] },
    {
      endpoint: "components.update",
      target: "component",
      body: (ids, n) => ({ description: `edit ${n}`, groupId: ids.group }),
      allowed: [200, 404]
    },
    {
      endpoint: "components.setStatus",
      target: "component",
      body: () => ({ status: "degraded" }),
      allowed: [200, 404]
    },
    {
      endpoint: "monitors.update",
      target: "monitor",
      body: (_, n) => ({ failureThreshold: 1 + n % 3 }),
      allowed: [200, 404]
    },
    { endpoint: "monitors.pause", target: "monitor", allowed: [200, 404] },
    {
      endpoint: "monitors.create",
      body: (ids) => ({ componentId: ids.component, ...http("http://127.0.0.1:9/late") }),
      allowed: [201, 404]
    },
    {
      endpoint: "incidents.update",
      target: "incident",
      body: (ids, n) => ({ componentIds: [ids.component], severity: n % 2 === 0 ? "major" : "minor" }),
      allowed: [200, 400]
    },
    {
      endpoint: "incidents.addUpdate",
      target: "incident",
      body: (ids, n) => ({
        status: "identified",
        message: `Update ${n}`,
        componentStatuses: { [ids.component]: "partial_outage" }
      }),
      allowed: [201, 400]
    },
    {
      endpoint: "incidents.create",
      body: (ids, n) => ({ title: `Late incident ${n}`, message: "Down", componentIds: [ids.component] }),
      allowed: [201, 400]
    },
    {
      endpoint: "maintenance.update",
      target: "window",
      body: (ids, n) => ({ title: `Doomed window ${n}`, componentIds: [ids.component] }),
      allowed: [200, 400]
    },
    {
      endpoint: "maintenance.create",
      body: (ids, n) => ({
        title: `Late window ${n}`,
        scheduledStart: inDays(6),
        scheduledEnd: inDays(6.1),
        componentIds: [ids.component]
      }),
      allowed: [201, 400]
    },
    {
      endpoint: "incidentTemplates.update",
      target: "template",
      body: (ids, n) => ({ message: `Down (${n})`, componentIds: [ids.component] }),
      allowed: [200, 400]
    },
    {
      endpoint: "incidentTemplates.create",
      body: (ids) => ({ name: unique("Late template"), title: "Down", message: "Down", componentIds: [ids.component] }),
      allowed: [201, 400]
    },
    // A webhook's filter is free text, not a reference: always accepted.
    {
      endpoint: "webhooks.update",
      target: "webhook",
      body: (ids) => ({ componentIds: [ids.component, "other"] }),
      allowed: [200]
    }
  ],
  check: (ids) =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const component = ids.component as never
      const listedComponents = yield* client.components.list({ query: {} })
      expect(listedComponents.map((c) => c.id)).not.toContain(ids.component)
      expect(listedComponents.filter((c) => c.groupId === ids.group)).toEqual([])
      expect((yield* client.componentGroups.list({ query: {} })).map((g) => g.id)).not.toContain(ids.group)
      expect((yield* client.monitors.list({ query: {} })).filter((m) => m.componentId === ids.component)).toEqual([])
      expect((yield* client.incidents.list({ query: {} })).filter((i) => i.componentIds.includes(component))).toEqual(
        []
      )
      expect((yield* client.maintenance.list({ query: {} })).filter((w) => w.componentIds.includes(component))).toEqual(
        []
      )
      expect((yield* client.incidentTemplates.list({ query: {} })).filter((t) => t.componentIds.includes(component)))
        .toEqual([])
      expect((yield* client.incidents.get({ params: { id: ids.incident as never } })).status).toBe("identified")
      expect((yield* client.maintenance.get({ params: { id: ids.window as never } })).status).toBe("scheduled")
    })
}

/**
 * A member (made in the database: joining takes a mailed link) and an open invitation, raced by
 * role changes, disabling and enabling, re-invitations of one address, a revocation and the
 * member's deletion. The member is an owner beside the suite's first administrator, so the
 * last-owner rule locks the owners in every write without refusing any.
 */
const team: Scenario = {
  resource: "team",
  setup: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const email = `${unique("racer").replace(/\W+/g, "-")}@example.com`
    const [member] = yield* sql<{ id: string }>`
      insert into users (email, name, password_hash, role)
      values (${email}, 'Racing member', 'not a hash: this member never signs in', 'owner') returning id`
    const invitation = yield* made("team.invite", { email: `invited-${email}`, role: "viewer" })
    return { member: member!.id, invitation: invitation.id, again: `again-${email}` }
  }),
  ops: [
    {
      endpoint: "team.updateUser",
      label: "role",
      target: "member",
      body: (_ids, n) => ({ role: n % 2 === 0 ? "admin" : "owner" }),
      allowed: [200, 404]
    },
    {
      endpoint: "team.updateUser",
      label: "disabled",
      target: "member",
      body: (_ids, n) => ({ disabled: n % 2 === 0 }),
      allowed: [200, 404]
    },
    { endpoint: "team.invite", body: (ids) => ({ email: ids.again, role: "editor" }), allowed: [201] },
    { endpoint: "team.revokeInvitation", target: "invitation", terminal: true, once: "revoke", allowed: [204, 404] },
    { endpoint: "team.removeUser", target: "member", terminal: true, once: "delete", allowed: [204, 404] }
  ],
  check: (ids) =>
    Effect.gen(function*() {
      const client = yield* ApiClient
      const members = yield* client.team.listUsers({ query: { limit: 1000 } })
      expect(members.map((member) => member.id)).not.toContain(ids.member)
      expect(members.some((member) => member.role === "owner" && !member.disabled), "an enabled owner").toBe(true)
      const open = yield* client.team.listInvitations({ query: { limit: 1000 } })
      expect(open.map((invitation) => invitation.id)).not.toContain(ids.invitation)
      expect(open.filter((invitation) => invitation.email === ids.again)).toHaveLength(1)
    })
}

const scenarios: ReadonlyArray<Scenario> = [
  components,
  componentGroups,
  statusPages,
  monitors,
  pushMonitors,
  incidents,
  maintenance,
  webhooks,
  incidentTemplates,
  apiKeys,
  subscribers,
  organization,
  team,
  componentNeighbours
]

// ---------------------------------------------------------------------------------------------
// The tests

/** The request log's lines of 5xx answers (with their cause), kept for the failure message. */
const serverErrors: Array<string> = []

/**
 * Keeps the request log's 5xx lines in `serverErrors` and prints warnings and errors as usual;
 * the request log of every other answer (Info) is dropped.
 */
const serverLog = Logger.make<unknown, void>((options) => {
  const annotations = logAnnotations(options)
  const annotation = (key: string) => annotations[key]
  const status = annotation("http.status")
  if (typeof status === "number" && status >= 500) {
    const messages = Array.isArray(options.message) ? options.message : [options.message]
    const text = messages.map((m) => Cause.isCause(m) ? Cause.pretty(m) : String(m)).join(" ")
    const cause = options.cause.reasons.length === 0 ? "" : ` ${Cause.pretty(options.cause)}`
    serverErrors.push(
      `${annotation("http.method")} ${annotation("http.url")} ${status}: ${text}${cause}`.slice(0, 2000)
    )
  } else if (LogLevel.isGreaterThanOrEqualTo(options.logLevel, "Warn")) {
    Logger.defaultLogger.log(options)
  }
})

/**
 * The server with the dispatcher, as it runs in production and in the fuzz suite: the webhook
 * deliveries it records are writes on the same rows as the admin API's. Logs at Info, so that the
 * request log's line of a 5xx reaches `serverLog`.
 */
const Stack = Dispatcher.pipe(
  Layer.provideMerge(TestStack(testConfig(), "Info")),
  Layer.provideMerge(replaceDefaultLogger(serverLog))
)

layer(Stack, { excludeTestServices: true })("concurrent admin writes", (it) => {
  it("every write endpoint of the API is raced here or excluded with a reason", () => {
    const raced = new Set(scenarios.flatMap((scenario) => scenario.ops.map((op) => op.endpoint)))
    const writes = writeEndpoints.map(([key]) => key)
    // What the table or the exclusions name must exist (and be a write): no stale rows.
    expect([...raced, ...Object.keys(notExercised)].filter((key) => !writes.includes(key))).toEqual([])
    expect(Object.keys(notExercised).filter((key) => raced.has(key)), "both raced and excluded").toEqual([])
    expect(
      writes.filter((key) => !raced.has(key) && notExercised[key] === undefined),
      "write endpoints neither raced nor excluded: add them to a scenario, or to notExercised with a reason"
    ).toEqual([])
    // The exclusions are the public writes only: every admin write is raced.
    expect(writeEndpoints.filter(([key, endpoint]) => isAdmin(endpoint) && !raced.has(key)).map(([key]) => key))
      .toEqual([])
  })

  for (const scenario of scenarios) {
    it.effect(scenario.resource, () => race(scenario), 30_000)
  }
})
