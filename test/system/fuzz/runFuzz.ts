/**
 * The property-based fuzzer: sends `requests` generated requests (seeded, so a seed replays the
 * same sequence; exactly so with concurrency 1) to every operation of the service's OpenAPI
 * document and reports what broke the rules in `checks.ts`. It never throws on a finding: the
 * caller decides what passes. What the answers teach (learned.ts: the lists' cursors, entity
 * tags) feeds the requests that follow: to page on, to alter, to send back as `If-Match`.
 *
 * It shares the service with other scenarios, so it only deletes, revokes or changes what it
 * created itself (plus the organization, which it restores), points every URL it stores at a
 * closed loopback port, connects from its own loopback address so the per-client rate limits
 * it trips are not the suite's, and cleans up at the end.
 */
import type { IncomingHttpHeaders } from "node:http"
import { Agent, request as httpRequest } from "node:http"
import { gunzipSync } from "node:zlib"

import * as fc from "fast-check"

import type { Finding, FindingKind, RawResponse } from "./checks.js"
import { makeChecker, replayProblem } from "./checks.js"
import { Learned } from "./learned.js"
import type { Operation } from "./openapi.js"
import { fetchDocument } from "./openapi.js"
import type { Category, FuzzRequest } from "./requests.js"
import { cycle, requestArb, resourcePathOf } from "./requests.js"
import { isFuzzAddress, secretOf, tokensIn } from "./secrets.js"
import type { Context, UnsubscribeLink } from "./values.js"

export interface FuzzOptions {
  readonly baseUrl: string
  /** A valid API key; never revoked by the fuzzer. */
  readonly apiKey: string
  readonly seed: number
  readonly requests: number
  /** Requests in flight at once (default 12). */
  readonly concurrency?: number
  readonly log?: (line: string) => void
  /**
   * Local address to connect from. Default: a loopback address of its own (127.77.0.1) when the
   * service is on IPv4 loopback on Linux, so sign-in and subscribe limits per client address
   * that the fuzzer trips do not throttle the scenarios that run after it. `null`: the system's choice.
   */
  readonly localAddress?: string | null
  /**
   * Secrets some operations need to succeed, which no document gives: an administrator's
   * credentials (sign-in), and the mail sent to the fuzzer's `fuzz-…@example.com` subscribers,
   * whose links carry the tokens of verify and unsubscribe. Without them those operations can
   * only fail, and the report says so (`needSecrets`).
   */
  readonly signIn?: { readonly email: string; readonly password: string }
  /** The text of every mail sent so far to `fuzz-…@example.com` addresses. */
  readonly mailbox?: () => ReadonlyArray<string>
  /** Tokens of push monitors made for the run: a push needs one (the run learns more from its answers). */
  readonly pushTokens?: ReadonlyArray<string>
  /** Their monitors: a rotation needs a push monitor (its answer's token joins the others). */
  readonly pushMonitorIds?: ReadonlyArray<string>
}

export interface FuzzFailure {
  readonly operation: string
  readonly request: string
  readonly status: number | null
  readonly body: string
  readonly reason: string
}

export interface FuzzReport {
  readonly seed: number
  readonly requests: number
  /** Operations that received at least one answered request, and how many the document lists. */
  readonly operations: number
  readonly operationsTotal: number
  readonly uncoveredOperations: ReadonlyArray<string>
  /** Operations that answered 2xx at least once; those that never did. */
  readonly operationsWith2xx: number
  readonly operationsWithout2xx: ReadonlyArray<string>
  /** What those that never did were answered, by category and status ("category status": count), so a miss explains itself. */
  readonly answersWithout2xx: Record<string, Record<string, number>>
  /** Operations that cannot succeed without a secret this run was not given (`signIn`, `mailbox`). */
  readonly needSecrets: ReadonlyArray<string>
  readonly byStatus: Record<string, number>
  readonly byCategory: Record<string, number>
  readonly serverErrors: number
  readonly errorShapeViolations: number
  readonly schemaViolations: number
  /** Answers whose status the document does not list for the operation, and which ("operation status": count). */
  readonly undocumentedStatuses: number
  readonly undocumentedByOperation: Record<string, number>
  readonly adminWithoutCredentialsNot401: number
  /** 2xx answers to deliberately wrong requests (category `strict`), and their 400s that did not name what was wrong. */
  readonly acceptedInvalid: number
  readonly unnamedRefusals: number
  /** Deliberately wrong requests sent, by kind, and their answers' statuses (kind to status to count). */
  readonly deviations: Record<string, Record<string, number>>
  /** Required headers missing, declared ones not as declared. */
  readonly headerViolations: number
  /** The service's own headers where the document does not declare them, and which ("operation status header": count). */
  readonly undocumentedHeaders: number
  readonly undocumentedHeaderByOperation: Record<string, number>
  /** Retries with an Idempotency-Key that did not replay a first answer that succeeded. */
  readonly replayViolations: number
  /** Requests that got no HTTP answer at all (connection reset, time-out). */
  readonly transportErrors: number
  readonly durationMs: number
  /** The first findings: 10 of each kind at most (one kind must not hide the others), 50 in all. */
  readonly failures: ReadonlyArray<FuzzFailure>
}

/**
 * True when the report has no finding and every operation answered 2xx at least once (but those
 * whose secret the run was not given).
 */
export const fuzzPassed = (report: FuzzReport) =>
  report.serverErrors + report.errorShapeViolations + report.schemaViolations + report.undocumentedStatuses +
        report.adminWithoutCredentialsNot401 + report.acceptedInvalid + report.unnamedRefusals +
        report.headerViolations + report.undocumentedHeaders + report.replayViolations + report.transportErrors === 0 &&
  report.operationsWithout2xx.every((id) => report.needSecrets.includes(id))

const MAX_FAILURES = 50
const MAX_FAILURES_OF_A_KIND = 10
/** Node's limit on a request line and headers together (`maxHeaderSize`, 16 KB). */
const headerLimitBytes = 16 * 1024
const headBytes = (request: { readonly target: string; readonly headers: Record<string, string> }) =>
  Buffer.byteLength(request.target) +
  Object.entries(request.headers).reduce((sum, [name, value]) => sum + Buffer.byteLength(name + value) + 4, 0)
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024
const excerpt = (text: string, length: number) =>
  JSON.stringify(text.length > length ? `${text.slice(0, length)}… (${text.length} chars)` : text)

const seedOf = (seed: number, index: number) =>
  (Math.imul(seed ^ 0x5bd1e995, 0x9e3779b1) + Math.imul(index + 1, 0x85ebca6b)) | 0

/**
 * The body as a client reads it: unpacked when it came gzipped (a request may ask for gzip). Bytes
 * that do not unpack are left as they came, so the checks report them as a body that is not JSON.
 */
const decoded = (headers: IncomingHttpHeaders, body: Buffer) => {
  if (headers["content-encoding"] !== "gzip") return body
  try {
    return gunzipSync(body)
  } catch {
    return body
  }
}

/** A keep-alive HTTP/1.1 client that sends exactly the given bytes (fetch would normalize them). */
const makeSender = (baseUrl: string, concurrency: number, localAddress: string | undefined) => {
  const url = new URL(baseUrl)
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency, ...(localAddress ? { localAddress } : {}) })
  const send = (method: string, target: string, headers: Record<string, string>, body?: string) =>
    new Promise<RawResponse>((resolve, reject) => {
      // An explicit length: Node sends a GET or DELETE body unframed otherwise, desynchronizing the connection.
      const length = body === undefined ? {} : { "content-length": String(Buffer.byteLength(body)) }
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port || 80,
          method,
          path: target,
          headers: { ...headers, ...length },
          agent,
          timeout: 30_000
        },
        (res) => {
          const chunks: Array<Buffer> = []
          let size = 0
          const answer = () => ({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: decoded(res.headers, Buffer.concat(chunks))
          })
          // An event stream (the admin API's live events) never ends: its answer is its first
          // event, up to the blank line, and the request is dropped then (its socket with it).
          const eventStream = String(res.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase() ===
            "text/event-stream"
          res.on("data", (chunk: Buffer) => {
            size += chunk.length
            if (size <= MAX_RESPONSE_BYTES) chunks.push(chunk)
            if (eventStream) {
              const text = Buffer.concat(chunks).toString("utf8")
              const end = /\r?\n\r?\n/.exec(text)
              if (end !== null) {
                chunks.splice(0, chunks.length, Buffer.from(text.slice(0, end.index + end[0].length)))
                resolve(answer())
                req.destroy()
              }
            }
          })
          res.on("end", () => resolve(answer()))
          res.on("error", reject)
        }
      )
      req.on("timeout", () => req.destroy(new Error("no answer within 30 s")))
      req.on("error", reject)
      req.end(body)
    })
  return { send, close: () => agent.destroy() }
}

/** Ids of the resources the fuzzer created, by the path segment naming them (`components`, ...). */
/**
 * The ids the fuzzer created and has not seen go, by resource. Of a resource that other operations
 * address by id, the two oldest are never offered to a valid delete: deletes succeed as often as
 * creates, so without them the pool would be empty half the time and an update or read of a known
 * resource would rarely get through.
 */
class Pools {
  private readonly ids = new Map<string, Array<string>>()
  constructor(private readonly addressed: ReadonlySet<string>) {}
  get(resource: string) {
    return this.ids.get(resource) ?? []
  }
  deletable(resource: string) {
    return this.get(resource).slice(this.addressed.has(resource) ? 2 : 0)
  }
  add(resource: string, id: string) {
    this.ids.set(resource, [...this.get(resource), id])
  }
  set(resource: string, ids: ReadonlyArray<string>) {
    this.ids.set(resource, [...ids])
  }
  remove(resource: string, id: string) {
    this.ids.set(resource, this.get(resource).filter((x) => x !== id))
  }
}

/** Request headers shown in a finding's request. */
const conditionalHeaders = ["if-match", "if-none-match", "idempotency-key"]

/** The `{id}` a request's path names, decoded. */
const pathIdOf = (op: Operation, request: FuzzRequest) => {
  const at = op.path.split("/").indexOf("{id}")
  if (at < 0) return undefined
  const segment = request.target.split("?")[0]!.split("/")[at]
  try {
    return segment === undefined ? undefined : decodeURIComponent(segment)
  } catch {
    return undefined
  }
}

const collectionOf = (op: Operation) => (op.path.includes("{") ? undefined : op.path.split("/").pop())

export const runFuzz = async (options: FuzzOptions): Promise<FuzzReport> => {
  const started = performance.now()
  const log = options.log ?? (() => {})
  const concurrency = options.concurrency ?? 12
  const base = new URL(options.baseUrl)
  if (base.hostname === "localhost") base.hostname = "127.0.0.1"
  const baseUrl = base.origin
  const localAddress = options.localAddress === undefined
    ? (base.hostname === "127.0.0.1" && process.platform === "linux" ? "127.77.0.1" : undefined)
    : options.localAddress ?? undefined

  const document = await fetchDocument(baseUrl)
  const operations = document.operations
  const check = makeChecker(document)
  const sender = makeSender(baseUrl, concurrency, localAddress)
  const auth = { authorization: `Bearer ${options.apiKey}`, accept: "application/json" }
  const json = (method: string, target: string, body?: unknown) =>
    sender.send(
      method,
      target,
      body === undefined ? auth : { ...auth, "content-type": "application/json" },
      body === undefined ? undefined : JSON.stringify(body)
    )

  // Everything the fuzzer created lives in pools, created ids only: the suite's own key or
  // resources are never the target of a valid delete. The organization is shared, so it is restored.
  const pools = new Pools(
    new Set(operations.flatMap((op) => op.method !== "DELETE" && op.resource !== undefined ? [op.resource] : []))
  )
  const orgResponse = await json("GET", "/api/v1/admin/org")
  const organization = orgResponse.status === 200 ? JSON.parse(orgResponse.body.toString("utf8")) : undefined
  if (organization?.id) pools.add("org", organization.id)
  for (const token of options.pushTokens ?? []) pools.add("push-tokens", token)
  for (const id of options.pushMonitorIds ?? []) pools.add("push-monitors", id)
  log(
    `fuzz: seed ${options.seed}, ${options.requests} requests over ${operations.length} operations, concurrency ${concurrency}`
  )

  // Read again at most every 200 ms: the mailbox grows while the run goes on. A token that
  // confirmed works no more, nor does an unsubscribe link once its subscriber unsubscribed or was
  // deleted (the address may subscribe again, with a new link): offered again, they could only fail.
  let mailed = tokensIn([])
  let mailedAt = 0
  const spent = new Set<string>()
  const linkKey = (link: UnsubscribeLink) => `${link.email} ${link.token}`
  const mail = () => {
    if (options.mailbox !== undefined && performance.now() - mailedAt > 200) {
      mailedAt = performance.now()
      mailed = tokensIn(options.mailbox())
    }
    return {
      verify: mailed.verify.filter((token) => !spent.has(token)),
      unsubscribe: mailed.unsubscribe.filter((link) => !spent.has(linkKey(link)))
    }
  }
  /** The fuzzer's subscribers by id, as last listed: a deleted one's links are spent. */
  const subscriberEmails = new Map<string, string>()
  /** Its subscriber is gone: the links mailed to `email` so far work no more. */
  const spendLinksOf = (email: string | null | undefined) => {
    for (const link of mail().unsubscribe) if (link.email === email) spent.add(linkKey(link))
  }
  const learned = new Learned()
  const ctx: Context = {
    resolve: document.resolve,
    now: Date.now(),
    signIn: options.signIn,
    verifyTokens: () => mail().verify,
    unsubscribeLinks: () => mail().unsubscribe,
    cursorsOf: (id) => learned.cursorsOf(id),
    cursorsBesides: (id) => learned.cursorsBesides(id),
    entityTagOf: (path) => learned.entityTagOf(path),
    staleEntityTagsOf: (path) => learned.staleEntityTagsOf(path),
    // Reads the pool when a value is drawn, so arbitraries can be built once and reused.
    idFor: (resource, purpose) =>
      fc.tuple(fc.nat(9), fc.nat(), fc.uuid()).map(([known, pick, uuid]) => {
        const ids = purpose === "delete" ? pools.deletable(resource) : pools.get(resource)
        return ids.length === 0 || known === 0 ? uuid : ids[pick % ids.length]!
      })
  }
  const arbitraries = new Map<string, fc.Arbitrary<FuzzRequest>>()
  const arbitraryFor = (op: Operation, category: Category) => {
    const key = `${op.id} ${category}`
    let arbitrary = arbitraries.get(key)
    if (arbitrary === undefined) arbitraries.set(key, arbitrary = requestArb(op, category, ctx, options.apiKey))
    return arbitrary
  }

  const byStatus: Record<string, number> = {}
  const byOperation = new Map<string, Record<string, number>>()
  const byCategory: Record<string, number> = {}
  const counts: Record<FindingKind | "transport", number> = {
    serverError: 0,
    errorShape: 0,
    schema: 0,
    undocumentedStatus: 0,
    notUnauthorized: 0,
    acceptedInvalid: 0,
    unnamedRefusal: 0,
    header: 0,
    undocumentedHeader: 0,
    replay: 0,
    transport: 0
  }
  const covered = new Set<string>()
  const succeeded = new Set<string>()
  const undocumented: Record<string, number> = {}
  const undocumentedHeaders: Record<string, number> = {}
  const deviations: Record<string, Record<string, number>> = {}
  const failures: Array<FuzzFailure> = []
  const summary = (request: FuzzRequest) =>
    `${request.category} ${request.method} ${excerpt(request.target, 160)} credentials=${request.credentials} ` +
    `content-type=${request.headers["content-type"] ?? "-"} ` +
    conditionalHeaders.filter((name) => request.headers[name] !== undefined)
      .map((name) => `${name}=${excerpt(request.headers[name]!, 60)} `).join("") +
    `body=${request.body === undefined ? "-" : excerpt(request.body, 160)}` +
    (request.expect === undefined ? "" : ` (sent ${request.expect.what})`) + (request.repeat ? " (sent twice)" : "")
  const failuresOfKind: Record<string, number> = {}
  const fail = (
    op: Operation,
    request: FuzzRequest,
    status: number | null,
    body: string,
    kind: FindingKind | "transport",
    reason: string
  ) => {
    const ofKind = failuresOfKind[kind] = (failuresOfKind[kind] ?? 0) + 1
    if (failures.length < MAX_FAILURES && ofKind <= MAX_FAILURES_OF_A_KIND) {
      failures.push({ operation: op.id, request: summary(request), status, body: excerpt(body, 300), reason })
    }
  }

  /** The cursor of a list's `Link`, the ETag of a read or of a write's resource; `sent` is the clock's tick at sending. */
  const learnHeaders = (op: Operation, request: FuzzRequest, response: RawResponse, sent: number) => {
    const answered = learned.tick()
    if (!(response.status >= 200 && response.status < 300) && response.status !== 304) return
    const tag = response.headers.etag
    if (typeof tag === "string") {
      if (op.method !== "GET") learned.entityTag(resourcePathOf(op, request.target.split("?")[0]!), tag)
      else if (op.path.endsWith("}")) learned.read(request.target, tag, sent, answered)
      else learned.entityTag(request.target, tag)
    }
    const link = /^<([^<>]*)>/.exec(String(response.headers.link ?? ""))?.[1]
    const cursor = link === undefined ? null : new URL(link, "http://link.invalid").searchParams.get("cursor")
    if (cursor) learned.cursor(op.id, cursor)
  }

  const learn = (op: Operation, request: FuzzRequest, response: RawResponse) => {
    // A resource can go without a delete of its own (a component's monitors go with it): an id
    // the service says it does not know leaves the pool.
    if (response.status === 404 && request.credentials === "key" && op.resource !== undefined) {
      const id = pathIdOf(op, request)
      if (id !== undefined && response.body.toString("utf8").includes(id)) pools.remove(op.resource, id)
    }
    if (response.status >= 300) return
    // A push monitor's token is shown once, in the answer that made it (a creation, a rotation).
    const madeToken = response.body.length < 100_000 && /"pushToken"/.test(response.body.toString("utf8"))
      ? JSON.parse(response.body.toString("utf8"))?.pushToken
      : undefined
    if (typeof madeToken === "string") {
      pools.add("push-tokens", madeToken)
      if (op.id === "monitors.create" && request.credentials === "key") {
        pools.add("push-monitors", JSON.parse(response.body.toString("utf8")).id)
      }
    }
    // Public operations succeed with any credentials.
    if (op.id === "subscriptions.verify") spent.add(decodeURIComponent(request.target.split("?")[0]!.split("/").pop()!))
    if (op.id === "subscriptions.unsubscribe") spendLinksOf(JSON.parse(request.body ?? "{}").email)
    if (op.id === "subscriptions.oneClickUnsubscribe") {
      spendLinksOf(new URLSearchParams(request.target.split("?")[1] ?? "").get("email"))
    }
    if (request.credentials !== "key") return
    const collection = collectionOf(op)
    if (op.method === "POST" && response.status === 201 && collection !== undefined) {
      const id = JSON.parse(response.body.toString("utf8"))?.id
      if (typeof id === "string") pools.add(collection, id)
    }
    if (op.method === "DELETE" && op.resource !== undefined) {
      const id = decodeURIComponent(request.target.split("?")[0]!.split("/").pop()!)
      pools.remove(op.resource, id)
      if (op.resource === "subscribers") spendLinksOf(subscriberEmails.get(id))
    }
    // Members join by invitation, which names no id the fuzzer could learn: the list does.
    if (op.id === "team.listUsers") {
      const listed: Array<{ id: string }> = JSON.parse(response.body.toString("utf8"))
      const known = new Set(pools.get("users"))
      for (const member of listed) if (!known.has(member.id)) pools.add("users", member.id)
    }
    // Subscribers come from the public subscribe, which names no id: the list does, and only the
    // fuzzer's own addresses may be deleted.
    if (op.id === "subscribers.list") {
      const listed: Array<{ id: string; email: string }> = JSON.parse(response.body.toString("utf8"))
      const fuzzers = listed.filter((subscriber) => isFuzzAddress(subscriber.email))
      for (const subscriber of fuzzers) subscriberEmails.set(subscriber.id, subscriber.email)
      // A first page with no next one lists them all: those gone (unsubscribed by a link, which
      // names no id) leave the pool, so a valid delete names one that exists.
      const whole = !request.target.includes("cursor=") && response.headers["link"] === undefined
      const known = new Set(pools.get("subscribers"))
      if (whole) pools.set("subscribers", fuzzers.map((subscriber) => subscriber.id))
      else for (const subscriber of fuzzers) if (!known.has(subscriber.id)) pools.add("subscribers", subscriber.id)
    }
  }

  /** The answer, or undefined when there is none to judge (counted as a transport error when that is the service's doing). */
  const send = async (op: Operation, request: FuzzRequest): Promise<RawResponse | undefined> => {
    try {
      return await sender.send(request.method, request.target, request.headers, request.body)
    } catch (error) {
      const message = String((error as Error)?.message ?? error)
      const code = (error as { code?: string }).code
      // Headers Node refuses to send are the client's limit, not the service's.
      if (code === "ERR_INVALID_CHAR" || code === "ERR_INVALID_HTTP_TOKEN") return undefined
      // A request line and headers over 16 KB are answered 431 and the connection closed before
      // the body is read (src/http/PublicHttpServer.ts): a client still sending its body may see
      // the reset before the answer. That is the refusal, not a missing answer.
      if ((code === "ECONNRESET" || code === "EPIPE") && headBytes(request) > headerLimitBytes) return undefined
      counts.transport++
      byStatus["none"] = (byStatus["none"] ?? 0) + 1
      fail(op, request, null, "", "transport", `no HTTP answer: ${message}`)
      return undefined
    }
  }

  const judge = (
    op: Operation,
    request: FuzzRequest,
    response: RawResponse,
    sent: number,
    more: ReadonlyArray<Finding> = []
  ) => {
    covered.add(op.id)
    if (response.status >= 200 && response.status < 300) succeeded.add(op.id)
    byStatus[response.status] = (byStatus[response.status] ?? 0) + 1
    const answers = byOperation.get(op.id) ?? byOperation.set(op.id, {}).get(op.id)!
    const answerKey = `${request.category} ${response.status}`
    answers[answerKey] = (answers[answerKey] ?? 0) + 1
    if (request.expect !== undefined) {
      const answers = deviations[request.expect.kind] ??= {}
      answers[response.status] = (answers[response.status] ?? 0) + 1
    }
    for (const finding of [...check(op, request, response), ...more]) {
      counts[finding.kind]++
      if (finding.kind === "undocumentedStatus") {
        undocumented[`${op.id} ${response.status}`] = (undocumented[`${op.id} ${response.status}`] ?? 0) + 1
      }
      if (finding.kind === "undocumentedHeader") {
        const key = `${op.id} ${response.status} ${finding.header}`
        undocumentedHeaders[key] = (undocumentedHeaders[key] ?? 0) + 1
      }
      fail(
        op,
        request,
        response.status,
        response.body.toString("utf8"),
        finding.kind,
        `${finding.kind}: ${finding.reason}`
      )
    }
    learnHeaders(op, request, response, sent)
    learn(op, request, response)
  }

  let next = 0
  let lastLog = performance.now()
  const worker = async () => {
    while (next < options.requests) {
      const index = next++
      const opIndex = index % operations.length
      const op = operations[opIndex]!
      // Each round shifts the cycle by operation, so categories mix at any moment.
      const category = cycle[(Math.floor(index / operations.length) + opIndex) % cycle.length]!
      const [request] = fc.sample(arbitraryFor(op, category), { seed: seedOf(options.seed, index), numRuns: 1 })
      byCategory[category] = (byCategory[category] ?? 0) + 1
      const sent = learned.tick()
      const response = await send(op, request!)
      if (response === undefined) continue
      judge(op, request!, response, sent)
      if (request!.repeat) {
        const resent = learned.tick()
        const retry = await send(op, request!)
        const replayed = retry === undefined ? undefined : replayProblem(response, retry)
        if (retry !== undefined) judge(op, request!, retry, resent, replayed === undefined ? [] : [replayed])
      }
      if (performance.now() - lastLog > 10_000) {
        lastLog = performance.now()
        log(`fuzz: ${index + 1}/${options.requests} sent`)
      }
    }
  }
  try {
    await Promise.all(Array.from({ length: concurrency }, worker))
  } finally {
    await cleanUp(json, pools, organization, log).catch((error) => log(`fuzz: clean-up failed: ${error}`))
    sender.close()
  }

  return {
    seed: options.seed,
    requests: options.requests,
    operations: covered.size,
    operationsTotal: new Set(operations.map((op) => op.id)).size,
    uncoveredOperations: operations.map((op) => op.id).filter((id) => !covered.has(id)),
    operationsWith2xx: succeeded.size,
    operationsWithout2xx: operations.map((op) => op.id).filter((id) => !succeeded.has(id)),
    answersWithout2xx: Object.fromEntries([...byOperation].filter(([id]) => !succeeded.has(id))),
    needSecrets: operations.map((op) => op.id).filter((id) =>
      secretOf[id] === "signIn"
        ? options.signIn === undefined
        : secretOf[id] === "mailbox"
        ? options.mailbox === undefined
        : secretOf[id] !== undefined
    ),
    byStatus,
    byCategory,
    serverErrors: counts.serverError,
    errorShapeViolations: counts.errorShape,
    schemaViolations: counts.schema,
    undocumentedStatuses: counts.undocumentedStatus,
    undocumentedByOperation: undocumented,
    adminWithoutCredentialsNot401: counts.notUnauthorized,
    acceptedInvalid: counts.acceptedInvalid,
    unnamedRefusals: counts.unnamedRefusal,
    deviations,
    headerViolations: counts.header,
    undocumentedHeaders: counts.undocumentedHeader,
    undocumentedHeaderByOperation: undocumentedHeaders,
    replayViolations: counts.replay,
    transportErrors: counts.transport,
    durationMs: Math.round(performance.now() - started),
    failures
  }
}

/**
 * Removes what the fuzzer created so later scenarios see the service as before: monitors,
 * webhooks, API keys and components are deleted, windows cancelled, incidents resolved (they
 * cannot be deleted), subscribers of its example.com addresses removed, the organization restored.
 */
const cleanUp = async (
  json: (method: string, target: string, body?: unknown) => Promise<RawResponse>,
  pools: Pools,
  organization: Record<string, unknown> | undefined,
  log: (line: string) => void
) => {
  const all = (resource: string, f: (id: string) => Promise<unknown>) => Promise.all(pools.get(resource).map(f))
  await all("monitors", (id) => json("DELETE", `/api/v1/admin/monitors/${id}`))
  await all("webhooks", (id) => json("DELETE", `/api/v1/admin/webhooks/${id}`))
  await all("api-keys", (id) => json("DELETE", `/api/v1/admin/api-keys/${id}`))
  await all("maintenance", (id) => json("DELETE", `/api/v1/admin/maintenance/${id}`))
  await all("incidents", (id) => json("PATCH", `/api/v1/admin/incidents/${id}/resolve`, {}))
  await all("components", (id) => json("DELETE", `/api/v1/admin/components/${id}`))
  const subscribers = await json("GET", "/api/v1/admin/subscribers")
  if (subscribers.status === 200) {
    const list: Array<{ id: string; email: string }> = JSON.parse(subscribers.body.toString("utf8"))
    await Promise.all(
      list.filter((s) => isFuzzAddress(s.email)).map((s) => json("DELETE", `/api/v1/admin/subscribers/${s.id}`))
    )
  }
  if (organization !== undefined) {
    const { name, logoUrl, brandColor, timezone } = organization
    await json("PUT", `/api/v1/admin/org/${organization.id}`, { name, logoUrl, brandColor, timezone })
  }
  log("fuzz: cleaned up what it created")
}
