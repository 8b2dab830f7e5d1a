/**
 * No lost events. Operators make 1,000 incident, maintenance and component changes through both
 * API instances while the dispatcher process is SIGKILLed and restarted every few seconds, and
 * the maintenance clock starts and ends a few windows meanwhile. The client records every change
 * it asked for (what, about which components, when, and whether it was acknowledged); the
 * events these must cause, who must receive each (the webhooks' settings, the subscribers'
 * visibility rule) and the deliveries and mails received are then compared one to one, as
 * Jepsen's queue checker counts: none lost, none duplicated, none unexpected (eventsOracle.ts).
 */
import type pg from "pg"

import { sleep, until } from "../Processes.js"
import type { Random } from "../Random.js"
import type { TestBed } from "../TestBed.js"
import type { HookSpec, Kill, Mail, MailVerdicts, Operation, WebhookVerdicts } from "./eventsOracle.js"
import { expectedEvents, judgeMail, judgeWebhooks, makeKeyOf } from "./eventsOracle.js"

const workers = 8
const minimumKills = 10
/**
 * How long after the last kill the backlog may take to drain: what a killed dispatcher held is
 * claimed again when its lease runs out (a mail's is 45 s, its 30 s send time-out plus 15),
 * found by the dispatcher's 10 s poll for work nobody announced, then sent (15 s, for a backlog
 * on a loaded machine). Locally the drain took 46-49 s, its last mails coming back from the
 * leases of the last kills; a 60 s limit left 5 s for sending and failed on a slower machine.
 */
export const drainLimitMs = 45_000 + 10_000 + 15_000
/** Windows the maintenance clock starts and ends during the workload, one after another. */
const clockWindows = 5

const componentStatuses = ["operational", "degraded", "partial_outage", "major_outage"] as const
const openStatuses = ["investigating", "identified", "monitoring"] as const
const severities = ["minor", "major", "critical"] as const

/** Components 0–5 are public, 6 and 7 private; worker w owns component w's status. */
const publicComponents = 6
const privateComponents = 2

/** The webhooks; a filter names the scenario's components by index (6 is private). */
const hookSpecs: ReadonlyArray<Omit<HookSpec, "filter"> & { readonly filter?: ReadonlyArray<number> }> = [
  { name: "all", incidents: true, maintenance: true, components: true },
  { name: "incidents", incidents: true, maintenance: false, components: false },
  { name: "components", incidents: false, maintenance: false, components: true },
  { name: "filtered", incidents: true, maintenance: true, components: true, filter: [0, 1, 6] }
]

/** What the workload needs of a test bed: the bed of another scenario may offer it too (databaseFailover). */
export type EventsBed = Pick<TestBed, "apis" | "webhooks" | "smtp" | "dispatcher"> & {
  /** Queries on the primary of the moment, for the outbox check. */
  readonly sql: Pick<pg.Client, "query">
}

export interface EventsOptions {
  readonly operations: number
  /** The workload is spread over this long, so the kills fall among the changes. */
  readonly workloadMs: number
  /**
   * The fault injected meanwhile, told when the workload is done; resolves with when each kill
   * fell (a mail may be sent twice only across one). The events scenario's SIGKILLs the
   * dispatcher every 2–5 s, at least 10 times.
   */
  readonly fault?: (workloadDone: () => boolean) => Promise<ReadonlyArray<Kill>>
}

export interface EventsReport {
  readonly acknowledgedOperations: number
  /** Changes that failed or timed out: indeterminate (committed or not), so their events may or may not come. */
  readonly indeterminateOperations: number
  readonly operationsByKind: Record<string, number>
  readonly operationLatencyMs: { readonly p50: number; readonly p99: number }
  /** Events the acknowledged changes and the maintenance clock must cause. */
  readonly expectedEvents: number
  /** Expected events the outbox does not hold exactly once (the outbox checked against the client). */
  readonly acknowledgedNotCommitted: number
  readonly dispatcherKills: number
  readonly webhooks: Omit<WebhookVerdicts, "problems">
  readonly mail: Omit<MailVerdicts, "problems">
  readonly drainAfterLastKillMs: number
}

interface Item {
  readonly id: string
  readonly componentIds: ReadonlyArray<string>
  readonly isPublic: boolean
}

const about = (item: Item) => ({ subjectId: item.id, componentIds: item.componentIds, isPublic: item.isPublic })

export const runEventsScenario = async (bed: TestBed, random: Random, log: (line: string) => void) =>
  (await runEventsWorkload(bed, random, log, { operations: 1_000, workloadMs: 40_000 })).report

/** The workload, its fault and the oracle's verdicts; also the client's record of every change. */
export const runEventsWorkload = async (
  bed: EventsBed,
  random: Random,
  log: (line: string) => void,
  { fault, operations, workloadMs }: EventsOptions
): Promise<{ readonly report: EventsReport; readonly operations: ReadonlyArray<Operation> }> => {
  const admin = bed.apis[0].operator
  const components: Array<string> = []
  for (let i = 0; i < publicComponents + privateComponents; i++) {
    const isPublic = i < publicComponents
    const created = await admin.ok<{ id: string }>("POST", "/api/v1/admin/components", {
      name: `Events ${i}${isPublic ? "" : " (private)"}`,
      isPublic
    })
    components.push(created.id)
  }
  const publicSet = new Set(components.slice(0, publicComponents))
  const privates = components.slice(publicComponents)
  const isPublicItem = (ids: ReadonlyArray<string>) => ids.length === 0 || ids.some((id) => publicSet.has(id))
  /** Mostly a random subset; now and then private components only, so that some items are private. */
  const someComponents = () =>
    random.chance(0.15)
      ? privates.filter((_, i) => i === 0 || random.chance(0.5))
      : random.subset(components, 0.3)

  const hooks: Array<HookSpec> = hookSpecs.map(({ filter, ...toggles }) =>
    filter === undefined ? toggles : { ...toggles, filter: filter.map((i) => components[i]!) }
  )
  for (const hook of hooks) {
    const created = await admin.ok<{ secret: string }>("POST", "/api/v1/admin/webhooks", {
      name: `system ${hook.name}`,
      url: bed.webhooks.urlFor(hook.name),
      type: "generic",
      notifyOnIncident: hook.incidents,
      notifyOnMaintenance: hook.maintenance,
      notifyOnComponentChange: hook.components,
      componentIds: hook.filter ?? null
    })
    bed.webhooks.secrets.set(hook.name, created.secret)
  }
  const subscriber = await subscribeVerified(bed)
  // When each mail arrived, noticed by polling the capture (for duplicates: was there a kill between?).
  const arrivals: Array<number> = []
  const watchMail = setInterval(() => {
    while (arrivals.length < bed.smtp.messages.length) arrivals.push(Date.now())
  }, 20)

  const before = await bed.sql.query<{ id: string }>("select coalesce(max(id), 0)::text as id from outbox_events")
  const baseline = BigInt(before.rows[0]!.id)
  const done: Array<Operation> = []
  let failed = 0
  let next = 0
  const latencies: Array<number> = []
  const startedAt = Date.now()

  /** Sends a change and records it, acknowledged or not, with the id its answer names. */
  const perform = async <A>(
    operation: Omit<Operation, "sentAt" | "answeredAt" | "acknowledged" | "subjectId"> & {
      readonly subjectId?: string
    },
    call: () => Promise<A>,
    idOf: (answer: A) => string | undefined = () => operation.subjectId
  ): Promise<A | undefined> => {
    const sentAt = Date.now()
    try {
      const answer = await call()
      const answeredAt = Date.now()
      latencies.push(answeredAt - sentAt)
      done.push({ ...operation, subjectId: idOf(answer), sentAt, answeredAt, acknowledged: true })
      return answer
    } catch (error) {
      const status = (error as { status?: unknown }).status
      done.push({
        ...operation,
        subjectId: operation.subjectId,
        sentAt,
        answeredAt: Date.now(),
        acknowledged: false,
        ...(typeof status === "number" && { answeredStatus: status })
      })
      failed++
      log(`  ${operation.kind} ${operation.marker} failed: ${String(error)}`)
      return undefined
    }
  }

  const worker = async (w: number) => {
    const own = components[w]!
    let ownStatus = "operational"
    /** After a change with no answer, the component's status is unknown: its owner leaves it alone. */
    let ownKnown = true
    const open: Array<Item> = []
    const windows: Array<Item> = []
    while (true) {
      const index = next++
      if (index >= operations) break
      await sleep(Math.max(0, startedAt + (index * workloadMs) / operations - Date.now()))
      const api = bed.apis[index % 2]!.operator
      const marker = `op-${index}`
      const roll = random.next()
      if (ownKnown && roll < 0.35) {
        const status = random.pick(componentStatuses.filter((s) => s !== ownStatus))
        const answer = await perform(
          {
            marker,
            kind: "component.setStatus",
            subjectId: own,
            componentIds: [own],
            isPublic: publicSet.has(own),
            previousStatus: ownStatus,
            status
          },
          () => api.ok("PATCH", `/api/v1/admin/components/${own}/status`, { status })
        )
        if (answer === undefined) ownKnown = false
        ownStatus = status
      } else if (roll < 0.4) {
        // A window far ahead: only its `maintenance.scheduled` is due in this run.
        const componentIds = someComponents()
        const title = `Window w-${index}`
        const start = Date.now() + (2 + random.int(20)) * 86_400_000
        const isPublic = isPublicItem(componentIds)
        const created = await perform(
          { marker: title, kind: "maintenance.create", componentIds, isPublic },
          () =>
            api.ok<{ id: string }>("POST", "/api/v1/admin/maintenance", {
              title,
              scheduledStart: new Date(start).toISOString(),
              scheduledEnd: new Date(start + 3_600_000).toISOString(),
              componentIds
            }),
          (answer) => answer.id
        )
        if (created !== undefined) windows.push({ id: created.id, componentIds, isPublic })
      } else if (roll < 0.43 && windows.length > 0) {
        await cancel(api, windows.splice(random.int(windows.length), 1)[0]!, marker)
      } else if (open.length === 0 || random.chance(0.3)) {
        const componentIds = someComponents()
        const isPublic = isPublicItem(componentIds)
        const created = await perform(
          { marker, kind: "incident.create", componentIds, isPublic, status: "investigating" },
          () =>
            api.ok<{ id: string }>("POST", "/api/v1/admin/incidents", {
              // Titles carry no marker: every mail of an incident repeats its title.
              title: `Incident #${index}`,
              message: marker,
              severity: random.pick(severities),
              componentIds
            }),
          (answer) => answer.id
        )
        if (created !== undefined) open.push({ id: created.id, componentIds, isPublic })
      } else if (random.chance(0.25)) {
        const incident = open.splice(random.int(open.length), 1)[0]!
        await perform(
          { marker, kind: "incident.resolve", ...about(incident), status: "resolved" },
          () => api.ok("PATCH", `/api/v1/admin/incidents/${incident.id}/resolve`, { message: marker })
        )
      } else {
        const incident = random.pick(open)
        const status = random.pick(openStatuses)
        await perform(
          { marker, kind: "incident.addUpdate", ...about(incident), status },
          () => api.ok("POST", `/api/v1/admin/incidents/${incident.id}/updates`, { status, message: marker })
        )
      }
    }
    // Cancelling a window that has not started emits nothing: any event of it would be unexpected.
    for (const window of windows) await cancel(bed.apis[w % 2]!.operator, window, `cancel-${window.id}`)
  }
  const cancel = (api: TestBed["apis"][0]["operator"], window: Item, marker: string) =>
    perform(
      { marker, kind: "maintenance.cancel", ...about(window) },
      () => api.ok("DELETE", `/api/v1/admin/maintenance/${window.id}`)
    )

  /** Windows the maintenance clock must start and end: no components, so public and mailed. */
  const clock = async () => {
    for (let k = 0; k < clockWindows; k++) {
      await sleep(k === 0 ? 1_000 : workloadMs / clockWindows)
      const scheduledStart = Date.now() + 3_000
      const scheduledEnd = scheduledStart + 4_000
      const title = `Window clock-${k}`
      await perform(
        {
          marker: title,
          kind: "maintenance.create",
          componentIds: [],
          isPublic: true,
          clockWindow: { scheduledStart, scheduledEnd }
        },
        () =>
          admin.ok<{ id: string }>("POST", "/api/v1/admin/maintenance", {
            title,
            scheduledStart: new Date(scheduledStart).toISOString(),
            scheduledEnd: new Date(scheduledEnd).toISOString()
          }),
        (answer) => answer.id
      )
    }
  }

  let workloadDone = false
  const killer = async () => {
    const killTimes: Array<Kill> = []
    while (!workloadDone || killTimes.length < minimumKills) {
      await sleep(random.between(2_000, 5_000))
      const from = Date.now()
      await bed.dispatcher.kill()
      killTimes.push({ from, to: Date.now() })
      await sleep(random.between(100, 1_500))
      bed.dispatcher.start()
    }
    return killTimes
  }
  const [, killTimes] = await Promise.all([
    Promise.all([...Array.from({ length: workers }, (_, w) => worker(w)), clock()]).then(() => (workloadDone = true)),
    (fault ?? killer)(() => workloadDone)
  ])
  const kills = killTimes.length
  const lastKillAt = killTimes.at(-1)?.to ?? startedAt
  latencies.sort((a, b) => a - b)
  log(
    `  ${done.length - failed} changes acknowledged in ${Date.now() - startedAt} ms (p50 ${
      latencies[Math.floor(latencies.length / 2)]
    } ms, p99 ${latencies[Math.floor(latencies.length * 0.99)]} ms), ${kills} kills`
  )

  const expected = expectedEvents(done)
  const keyOf = makeKeyOf(done)
  const ours = new Set([...components, ...done.flatMap((op) => (op.subjectId === undefined ? [] : [op.subjectId]))])
  const mails = (): Array<Mail> =>
    bed.smtp.messages.flatMap((mail, i) =>
      mail.envelopeTo.includes(subscriber) && !(mail.parsed.subject ?? "").includes("Confirm your subscription")
        ? [{ subject: mail.parsed.subject ?? "", text: mail.parsed.text ?? "", arrivedAt: arrivals[i] ?? Date.now() }]
        : []
    )
  const webhookVerdicts = () =>
    judgeWebhooks({
      hooks,
      expected,
      keyOf,
      receipts: bed.webhooks.receipts,
      malformed: bed.webhooks.malformed,
      ours
    })
  const mailVerdicts = () => judgeMail({ expected, mails: mails(), kills: killTimes })
  await until(
    "every event delivered and mailed",
    () => webhookVerdicts().lost === 0 && mailVerdicts().lost === 0,
    drainLimitMs,
    250
  ).catch((error) => log(`  ${String(error)}`))
  const drainAfterLastKillMs = Date.now() - lastKillAt
  // A moment more, for deliveries and mails that should not come at all.
  await sleep(1_000)
  clearInterval(watchMail)
  const { problems: webhookProblems, ...webhooks } = webhookVerdicts()
  const { problems: mailProblems, ...mail } = mailVerdicts()
  for (const problem of [...webhookProblems, ...mailProblems].slice(0, 20)) log(`  ${problem}`)

  // The outbox checked against the client: every acknowledged change's event recorded once.
  const committed = (await bed.sql.query<{ event: string; payload: Record<string, unknown>; createdAt: Date }>(
    `select event, payload, created_at as "createdAt" from outbox_events where id > $1 order by id`,
    [baseline.toString()]
  )).rows
  const recorded = new Map<string, number>()
  for (const row of committed) {
    const key = keyOf(row.event, row.payload, row.createdAt.toISOString())
    if (key !== undefined) recorded.set(key, (recorded.get(key) ?? 0) + 1)
  }
  const notCommitted = expected.filter((event) => event.required && recorded.get(event.key) !== 1)
  for (const event of notCommitted.slice(0, 10)) {
    log(`  ${event.key}: acknowledged, recorded ${recorded.get(event.key) ?? 0} times in the outbox`)
  }

  const operationsByKind: Record<string, number> = {}
  for (const op of done) operationsByKind[op.kind] = (operationsByKind[op.kind] ?? 0) + 1
  const report: EventsReport = {
    acknowledgedOperations: done.length - failed,
    indeterminateOperations: failed,
    operationsByKind,
    operationLatencyMs: {
      p50: latencies[Math.floor(latencies.length / 2)] ?? 0,
      p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0
    },
    expectedEvents: expected.filter((event) => event.required).length,
    acknowledgedNotCommitted: notCommitted.length,
    dispatcherKills: kills,
    webhooks,
    mail,
    drainAfterLastKillMs
  }
  return { report, operations: done }
}

/** Subscribes an address and follows the link of the opt-in mail, as a person would. */
const subscribeVerified = async (bed: EventsBed) => {
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
