/**
 * No lost events. Operators make 1,000 incident and component changes through both API
 * instances while the dispatcher process is SIGKILLed and restarted every few seconds; then
 * every committed event must reach every matching webhook (and every incident event the
 * verified subscriber), counted the way Jepsen's queue checker counts: what was acknowledged
 * (committed events) against what was received.
 */
import { sleep, until } from "../Processes.js"
import type { Random } from "../Random.js"
import type { Receipt } from "../Sinks.js"
import type { TestBed } from "../TestBed.js"

const operations = 1_000
const workers = 8
/** The workload is spread over this long, so the kills fall among the changes. */
const workloadMs = 40_000
const minimumKills = 10
const drainLimitMs = 60_000

const componentStatuses = ["operational", "degraded", "partial_outage", "major_outage"] as const
const openStatuses = ["investigating", "identified", "monitoring"] as const

interface HookSpec {
  readonly name: string
  readonly incidents: boolean
  readonly components: boolean
  /** Indexes into the scenario's components; undefined: every component. */
  readonly filter?: ReadonlyArray<number>
}

const hooks: ReadonlyArray<HookSpec> = [
  { name: "all", incidents: true, components: true },
  { name: "incidents", incidents: true, components: false },
  { name: "components", incidents: false, components: true },
  { name: "filtered", incidents: true, components: true, filter: [0, 1] }
]

interface OutboxEvent {
  readonly id: string
  readonly event: string
  readonly payload: Record<string, unknown>
  readonly componentIds: ReadonlyArray<string>
  readonly createdAt: Date
}

/** What identifies an event in a generic delivery: its name, subject, status, message and commit time. */
const keyOf = (event: string, data: Record<string, unknown>, timestamp: string) =>
  [event, data.id, data.status, data.message ?? "", timestamp].join("|")

export interface EventsReport {
  readonly acknowledgedOperations: number
  /** Changes that failed or timed out: indeterminate (committed or not), so not checked. */
  readonly indeterminateOperations: number
  readonly operationLatencyMs: { readonly p50: number; readonly p99: number }
  readonly committedEvents: number
  /** Acknowledged changes missing from the outbox, or recorded there more than once. */
  readonly acknowledgedNotCommitted: number
  readonly dispatcherKills: number
  readonly webhooks: {
    readonly expected: number
    readonly delivered: number
    readonly lost: number
    readonly duplicated: number
    readonly duplicatesWithDifferentIds: number
    readonly unexpected: number
    readonly badSignatures: number
  }
  readonly mail: {
    readonly expected: number
    readonly delivered: number
    readonly lost: number
    readonly duplicated: number
  }
  readonly drainAfterLastKillMs: number
}

export const runEventsScenario = async (
  bed: TestBed,
  random: Random,
  log: (line: string) => void
): Promise<EventsReport> => {
  const admin = bed.apis[0].operator
  const components: Array<string> = []
  for (let i = 0; i < 6; i++) {
    components.push((await admin.ok<{ id: string }>("POST", "/api/v1/admin/components", { name: `Events ${i}` })).id)
  }
  for (const hook of hooks) {
    const created = await admin.ok<{ secret: string }>("POST", "/api/v1/admin/webhooks", {
      name: `system ${hook.name}`,
      url: bed.webhooks.urlFor(hook.name),
      type: "generic",
      notifyOnIncident: hook.incidents,
      notifyOnMaintenance: hook.incidents,
      notifyOnComponentChange: hook.components,
      componentIds: hook.filter?.map((i) => components[i]!) ?? null
    })
    bed.webhooks.secrets.set(hook.name, created.secret)
  }
  const subscriber = await subscribeVerified(bed)

  const before = await bed.sql.query<{ id: string }>("select coalesce(max(id), 0)::text as id from outbox_events")
  const baseline = BigInt(before.rows[0]!.id)
  const acknowledgedTokens: Array<string> = []
  /** Per component, the statuses acknowledged in order (each worker owns at most one component). */
  const acknowledgedStatuses = new Map<string, Array<string>>(components.map((id) => [id, []]))
  /**
   * Components whose owner saw a change fail (time-out, error): that change is indeterminate,
   * as in Jepsen, so the owner stops changing it and only its acknowledged prefix is checked.
   */
  const indeterminate = new Set<string>()
  let failed = 0
  let next = 0
  const latencies: Array<number> = []
  const startedAt = Date.now()

  const worker = async (w: number) => {
    const own = components[w]
    let ownStatus = "operational"
    const open: Array<string> = []
    while (true) {
      const index = next++
      if (index >= operations) return
      await sleep(Math.max(0, startedAt + (index * workloadMs) / operations - Date.now()))
      const api = bed.apis[index % 2]!.operator
      const token = `op-${index}`
      const opStartedAt = Date.now()
      let changingComponent = false
      try {
        if (own !== undefined && !indeterminate.has(own) && random.chance(0.4)) {
          const status = random.pick(componentStatuses.filter((s) => s !== ownStatus))
          changingComponent = true
          await api.ok("PATCH", `/api/v1/admin/components/${own}/status`, { status })
          ownStatus = status
          acknowledgedStatuses.get(own)!.push(status)
        } else if (open.length === 0 || random.chance(0.3)) {
          const created = await api.ok<{ id: string }>("POST", "/api/v1/admin/incidents", {
            title: `Incident ${token}`,
            message: token,
            severity: random.pick(["minor", "major", "critical"]),
            componentIds: random.subset(components, 0.3)
          })
          open.push(created.id)
          acknowledgedTokens.push(token)
        } else if (random.chance(0.25)) {
          const id = open.splice(random.int(open.length), 1)[0]!
          await api.ok("PATCH", `/api/v1/admin/incidents/${id}/resolve`, { message: token })
          acknowledgedTokens.push(token)
        } else {
          await api.ok("POST", `/api/v1/admin/incidents/${random.pick(open)}/updates`, {
            status: random.pick(openStatuses),
            message: token
          })
          acknowledgedTokens.push(token)
        }
        latencies.push(Date.now() - opStartedAt)
      } catch (error) {
        if (changingComponent) indeterminate.add(own!)
        failed++
        log(`  operation ${token} failed: ${String(error)}`)
      }
    }
  }

  let kills = 0
  let workloadDone = false
  let lastKillAt = 0
  const killer = async () => {
    while (!workloadDone || kills < minimumKills) {
      await sleep(random.between(2_000, 5_000))
      await bed.dispatcher.kill()
      kills++
      lastKillAt = Date.now()
      await sleep(random.between(100, 1_500))
      bed.dispatcher.start()
    }
  }
  await Promise.all([
    Promise.all(Array.from({ length: workers }, (_, w) => worker(w))).then(() => (workloadDone = true)),
    killer()
  ])
  latencies.sort((a, b) => a - b)
  log(
    `  ${operations - failed} changes acknowledged in ${Date.now() - startedAt} ms (p50 ${
      latencies[Math.floor(latencies.length / 2)]
    } ms, p99 ${latencies[Math.floor(latencies.length * 0.99)]} ms), dispatcher killed ${kills} times`
  )

  const committed = (await bed.sql.query<OutboxEvent>(
    `select id::text as id, event, payload, component_ids as "componentIds", created_at as "createdAt"
     from outbox_events where id > $1 order by outbox_events.id`,
    [baseline.toString()]
  )).rows
  const hookIds = new Map(hooks.map((hook) => [hook.name, hook.filter?.map((i) => components[i]!)]))
  const matches = (hook: HookSpec, event: OutboxEvent) => {
    const kind = event.event.split(".")[0]
    if (kind === "component" ? !hook.components : !hook.incidents) return false
    const filter = hookIds.get(hook.name)
    return filter === undefined || event.componentIds.some((id) => filter.includes(id))
  }
  /** (hook, event key) pairs that must be delivered. */
  const expected = new Set<string>()
  for (const event of committed) {
    const key = keyOf(event.event, event.payload, event.createdAt.toISOString())
    for (const hook of hooks) if (matches(hook, event)) expected.add(`${hook.name}#${key}`)
  }
  const pairOf = (receipt: Receipt) => `${receipt.hook}#${keyOf(receipt.event, receipt.data, receipt.timestamp)}`
  const delivered = () => {
    const seen = new Set(bed.webhooks.receipts.map(pairOf))
    let count = 0
    for (const pair of expected) if (seen.has(pair)) count++
    return count
  }
  const mailedTokens = () => {
    const seen = new Map<string, number>()
    for (const mail of bed.smtp.messages) {
      if (!mail.envelopeTo.includes(subscriber)) continue
      for (const token of (mail.parsed.text ?? "").match(/\bop-\d+\b/g) ?? []) {
        seen.set(token, (seen.get(token) ?? 0) + 1)
      }
    }
    return seen
  }
  const drained = () => delivered() === expected.size && acknowledgedTokens.every((token) => mailedTokens().has(token))
  await until("every event delivered", drained, drainLimitMs, 250).catch((error) => log(`  ${String(error)}`))
  const drainAfterLastKillMs = Date.now() - lastKillAt

  // Acknowledged writes against the outbox: every token once, every component change in order.
  const tokenCounts = new Map<string, number>()
  for (const event of committed) {
    const message = event.payload.message
    if (typeof message === "string" && /^op-\d+$/.test(message)) {
      tokenCounts.set(message, (tokenCounts.get(message) ?? 0) + 1)
    }
  }
  let acknowledgedNotCommitted = acknowledgedTokens.filter((token) => tokenCounts.get(token) !== 1).length
  for (const [id, statuses] of acknowledgedStatuses) {
    const recorded = committed.filter((event) => event.event === "component.status_changed" && event.payload.id === id)
      .map((event) => event.payload.status)
    // After an indeterminate change, the outbox may hold one more event than was acknowledged.
    const prefixOnly = indeterminate.has(id) && recorded.length === statuses.length + 1
    if (JSON.stringify(prefixOnly ? recorded.slice(0, -1) : recorded) !== JSON.stringify(statuses)) {
      acknowledgedNotCommitted += Math.max(1, Math.abs(recorded.length - statuses.length))
      log(`  component ${id}: acknowledged ${statuses.join(",")} but the outbox has ${recorded.join(",")}`)
    }
  }

  const idsByPair = new Map<string, Array<string>>()
  for (const receipt of bed.webhooks.receipts) {
    const pair = pairOf(receipt)
    idsByPair.set(pair, [...(idsByPair.get(pair) ?? []), receipt.webhookId])
  }
  let duplicated = 0
  let duplicatesWithDifferentIds = 0
  for (const pair of expected) {
    const ids = idsByPair.get(pair) ?? []
    if (ids.length > 1) duplicated++
    if (new Set(ids).size > 1) duplicatesWithDifferentIds++
  }
  // Every event ever committed (other scenarios' too) may legitimately arrive; anything else is unexpected.
  const everything = (await bed.sql.query<OutboxEvent>(
    `select id::text as id, event, payload, component_ids as "componentIds", created_at as "createdAt" from outbox_events`
  )).rows
  const legitimate = new Set<string>()
  for (const event of everything) {
    for (const hook of hooks) {
      if (matches(hook, event)) {
        legitimate.add(`${hook.name}#${keyOf(event.event, event.payload, event.createdAt.toISOString())}`)
      }
    }
  }
  const unexpected = bed.webhooks.receipts.filter((receipt) => !legitimate.has(pairOf(receipt))).length +
    bed.webhooks.malformed.length
  const mails = mailedTokens()

  return {
    acknowledgedOperations: operations - failed,
    indeterminateOperations: failed,
    operationLatencyMs: {
      p50: latencies[Math.floor(latencies.length / 2)] ?? 0,
      p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0
    },
    committedEvents: committed.length,
    acknowledgedNotCommitted,
    dispatcherKills: kills,
    webhooks: {
      expected: expected.size,
      delivered: delivered(),
      lost: expected.size - delivered(),
      duplicated,
      duplicatesWithDifferentIds,
      unexpected,
      badSignatures: bed.webhooks.receipts.filter((receipt) => !receipt.signatureValid).length
    },
    mail: {
      expected: acknowledgedTokens.length,
      delivered: acknowledgedTokens.filter((token) => mails.has(token)).length,
      lost: acknowledgedTokens.filter((token) => !mails.has(token)).length,
      duplicated: acknowledgedTokens.filter((token) => (mails.get(token) ?? 0) > 1).length
    },
    drainAfterLastKillMs
  }
}

/** Subscribes an address and follows the link of the opt-in mail, as a person would. */
const subscribeVerified = async (bed: TestBed) => {
  const email = "operator@system.test"
  const answer = await fetch(`${bed.apis[1].baseUrl}/api/v1/subscribe`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email })
  })
  if (answer.status !== 202) throw new Error(`subscribing answered ${answer.status}`)
  await until("the opt-in mail", () => bed.smtp.messages.some((mail) => mail.envelopeTo.includes(email)), 30_000)
  const mail = bed.smtp.messages.find((m) => m.envelopeTo.includes(email))!
  const token = /\/subscribe\/verify\/([^\s"<>]+)/.exec(mail.parsed.text ?? "")?.[1]
  if (token === undefined) throw new Error(`no verify link in the opt-in mail:\n${mail.parsed.text}`)
  const verified = await fetch(`${bed.apis[0].baseUrl}/api/v1/subscribe/verify/${token}`)
  if (verified.status !== 200) throw new Error(`verifying answered ${verified.status}: ${await verified.text()}`)
  return email
}
