/**
 * The events scenario's oracle. What the client did (each change it asked for, with its answer
 * and its time) gives the events that must happen; the webhooks' settings and the public
 * visibility rules give who must receive each (docs/notifications.md, "Who receives what";
 * docs/api.md, "Public visibility"). Each delivery and each mail the receivers got is then
 * matched to exactly one of those events. Nothing here reads what the system recorded.
 */
import type { Receipt } from "../Sinks.js"

export type EventName =
  | "incident.created"
  | "incident.updated"
  | "incident.resolved"
  | "maintenance.scheduled"
  | "maintenance.started"
  | "maintenance.completed"
  | "component.status_changed"

/** One change the client asked for, as the client saw it. */
export interface Operation {
  /** Unique per operation: the incident message (`op-<n>`), or the window's title. */
  readonly marker: string
  readonly kind:
    | "component.setStatus"
    | "incident.create"
    | "incident.addUpdate"
    | "incident.resolve"
    | "maintenance.create"
    | "maintenance.cancel"
  /** The component, incident or window; undefined when a creation got no answer. */
  readonly subjectId: string | undefined
  /** The components the change is about, as the client sent them (a component change: itself). */
  readonly componentIds: ReadonlyArray<string>
  /** The incident's or window's visibility, from the components the client named (docs/api.md). */
  readonly isPublic: boolean
  /** An incident's status after the change; a component change's statuses. */
  readonly status?: string
  readonly previousStatus?: string
  /** A window the clock starts and ends while the scenario runs (milliseconds since the epoch). */
  readonly clockWindow?: { readonly scheduledStart: number; readonly scheduledEnd: number }
  readonly sentAt: number
  readonly answeredAt: number
  /** False when the request failed or timed out: committed or not, nobody knows (Jepsen's "info"). */
  readonly acknowledged: boolean
  /** The status of a request answered with an error; none when it got no answer. */
  readonly answeredStatus?: number
}

export interface ExpectedEvent {
  readonly key: string
  readonly event: EventName
  readonly operation: Operation
  /** Whether subscribers get it: an incident or maintenance event of a public item. */
  readonly mailed: boolean
  /** False for the event of an unacknowledged change: it may arrive, or not. */
  readonly required: boolean
  /** The commit time (`timestamp`) must fall in [from, to]. */
  readonly from: number
  readonly to: number
}

export interface HookSpec {
  readonly name: string
  readonly incidents: boolean
  readonly maintenance: boolean
  readonly components: boolean
  /** Component ids; undefined: every component. */
  readonly filter?: ReadonlyArray<string>
}

const eventOf = {
  "incident.create": "incident.created",
  "incident.addUpdate": "incident.updated",
  "incident.resolve": "incident.resolved"
} as const

/** The events each operation must cause. Cancelling a window that has not started causes none. */
export const expectedEvents = (operations: ReadonlyArray<Operation>): Array<ExpectedEvent> =>
  operations.flatMap((operation): Array<ExpectedEvent> => {
    const base = { operation, required: operation.acknowledged, from: operation.sentAt, to: operation.answeredAt }
    switch (operation.kind) {
      case "component.setStatus":
        return [{ ...base, key: `component|${operation.marker}`, event: "component.status_changed", mailed: false }]
      case "incident.create":
      case "incident.addUpdate":
      case "incident.resolve": {
        const event = eventOf[operation.kind]
        return [{ ...base, key: `${event}|${operation.marker}`, event, mailed: operation.isPublic }]
      }
      case "maintenance.create": {
        const scheduled: ExpectedEvent = {
          ...base,
          key: `maintenance.scheduled|${operation.marker}`,
          event: "maintenance.scheduled",
          mailed: operation.isPublic
        }
        const clock = operation.clockWindow
        if (clock === undefined) return [scheduled]
        const byClock = (event: "maintenance.started" | "maintenance.completed", from: number): ExpectedEvent => ({
          ...scheduled,
          key: `${event}|${operation.marker}`,
          event,
          from,
          to: Number.POSITIVE_INFINITY
        })
        return [
          scheduled,
          byClock("maintenance.started", clock.scheduledStart),
          byClock("maintenance.completed", clock.scheduledEnd)
        ]
      }
      case "maintenance.cancel":
        return []
    }
  })

/** The toggle and the component filter of a webhook (docs/notifications.md, "Who receives what"). */
export const receives = (hook: HookSpec, expected: ExpectedEvent) => {
  const kind = expected.event.split(".")[0]
  const toggle = kind === "incident" ? hook.incidents : kind === "maintenance" ? hook.maintenance : hook.components
  return toggle &&
    (hook.filter === undefined || expected.operation.componentIds.some((id) => hook.filter!.includes(id)))
}

const sameSet = (a: unknown, b: ReadonlyArray<string>) =>
  Array.isArray(a) && new Set(a).size === new Set(b).size && b.every((id) => a.includes(id))

/** A millisecond either way: commit times and the client's clock are both truncated to milliseconds. */
const slackMs = 1

/**
 * Names the event a delivery (or an outbox row) is about, from what the client knows: the
 * marker in an incident's message or a window's title, or for a component change the
 * operation on that component, with these statuses, whose request was under way at the commit
 * time. Undefined when it is about nothing the client did.
 */
export const makeKeyOf = (operations: ReadonlyArray<Operation>) => {
  const componentChanges = new Map<string, Array<Operation>>()
  for (const operation of operations) {
    if (operation.kind !== "component.setStatus") continue
    const list = componentChanges.get(operation.subjectId!) ?? []
    list.push(operation)
    componentChanges.set(operation.subjectId!, list)
  }
  return (event: string, data: Record<string, unknown>, timestamp: string): string | undefined => {
    if (event.startsWith("incident.")) return `${event}|${String(data.message)}`
    if (event.startsWith("maintenance.")) return `${event}|${String(data.title)}`
    if (event !== "component.status_changed") return undefined
    const at = Date.parse(timestamp)
    const operation = (componentChanges.get(String(data.id)) ?? []).find((op) =>
      op.status === data.status && op.previousStatus === data.previousStatus &&
      op.sentAt - slackMs <= at && at <= op.answeredAt + slackMs
    )
    return operation === undefined ? undefined : `component|${operation.marker}`
  }
}

const statusAfter: Partial<Record<EventName, string>> = {
  "maintenance.scheduled": "scheduled",
  "maintenance.started": "in_progress",
  "maintenance.completed": "completed",
  "incident.resolved": "resolved"
}

/** What is wrong with a delivery's data for the event it was matched to; undefined when nothing. */
export const contentProblem = (expected: ExpectedEvent, data: Record<string, unknown>, timestamp: string) => {
  const { operation } = expected
  const at = Date.parse(timestamp)
  if (!(expected.from - slackMs <= at && at <= expected.to + slackMs)) {
    return `committed at ${timestamp}, outside ${new Date(expected.from).toISOString()} .. ${
      Number.isFinite(expected.to) ? new Date(expected.to).toISOString() : "now"
    }`
  }
  if (operation.subjectId !== undefined && data.id !== operation.subjectId) {
    return `about ${String(data.id)}, not ${operation.subjectId}`
  }
  if (expected.event === "component.status_changed") return undefined
  if (!sameSet(data.componentIds, operation.componentIds)) {
    return `componentIds ${JSON.stringify(data.componentIds)}, the client sent ${
      JSON.stringify(operation.componentIds)
    }`
  }
  const status = statusAfter[expected.event] ?? operation.status
  if (status !== undefined && data.status !== status) return `status ${String(data.status)}, expected ${status}`
  return undefined
}

export interface WebhookVerdicts {
  /** (webhook, event) pairs that must be delivered: acknowledged changes the webhook's settings match. */
  readonly expected: number
  readonly delivered: number
  readonly lost: number
  /** Pairs delivered more than once, and of those, under more than one `webhook-id`. */
  readonly duplicated: number
  readonly duplicatesWithDifferentIds: number
  /** Deliveries of no event the client caused, or to a webhook whose settings exclude it; bodies that are no delivery. */
  readonly unexpected: number
  /** Deliveries matched to their event whose id, components, status or commit time disagree with the client's. */
  readonly mismatched: number
  /** Deliveries of changes whose outcome the client does not know (accepted either way). */
  readonly ofIndeterminateChanges: number
  /** Deliveries about things other scenarios made (their monitors' components): not judged here. */
  readonly foreign: number
  readonly badSignatures: number
  readonly problems: ReadonlyArray<string>
}

export const judgeWebhooks = (options: {
  readonly hooks: ReadonlyArray<HookSpec>
  readonly expected: ReadonlyArray<ExpectedEvent>
  readonly keyOf: ReturnType<typeof makeKeyOf>
  readonly receipts: ReadonlyArray<Receipt>
  readonly malformed: ReadonlyArray<string>
  /** Ids of what the scenario created: a delivery about anything else is foreign. */
  readonly ours: ReadonlySet<string>
}): WebhookVerdicts => {
  const byKey = new Map(options.expected.map((event) => [event.key, event]))
  const ids = new Map<string, Array<string>>()
  const problems: Array<string> = options.malformed.map((text) => `not a delivery: ${text}`)
  let unexpected = options.malformed.length
  let mismatched = 0
  let ofIndeterminate = 0
  let foreign = 0
  for (const receipt of options.receipts) {
    const key = options.keyOf(receipt.event, receipt.data, receipt.timestamp)
    const event = key === undefined ? undefined : byKey.get(key)
    const hook = options.hooks.find((h) => h.name === receipt.hook)
    if (event === undefined || hook === undefined || !receives(hook, event)) {
      if (event === undefined && !options.ours.has(String(receipt.data.id))) {
        foreign++
        continue
      }
      unexpected++
      problems.push(`${receipt.hook} got ${receipt.event} ${JSON.stringify(receipt.data)} at ${receipt.timestamp}`)
      continue
    }
    const problem = contentProblem(event, receipt.data, receipt.timestamp)
    if (problem !== undefined) {
      mismatched++
      problems.push(`${receipt.hook} got ${event.key}: ${problem}`)
    }
    if (!event.required) ofIndeterminate++
    const pair = `${receipt.hook}#${event.key}`
    ids.set(pair, [...(ids.get(pair) ?? []), receipt.webhookId])
  }
  let expected = 0
  let delivered = 0
  let duplicated = 0
  let duplicatesWithDifferentIds = 0
  for (const event of options.expected) {
    for (const hook of options.hooks) {
      if (!receives(hook, event)) continue
      const got = ids.get(`${hook.name}#${event.key}`) ?? []
      if (got.length > 1) duplicated++
      if (new Set(got).size > 1) duplicatesWithDifferentIds++
      if (!event.required) continue
      expected++
      if (got.length > 0) delivered++
      else if (problems.length < 200) problems.push(`${hook.name} never got ${event.key}`)
    }
  }
  return {
    expected,
    delivered,
    lost: expected - delivered,
    duplicated,
    duplicatesWithDifferentIds,
    unexpected,
    mismatched,
    ofIndeterminateChanges: ofIndeterminate,
    foreign,
    badSignatures: options.receipts.filter((receipt) => !receipt.signatureValid).length,
    problems
  }
}

export interface Mail {
  readonly subject: string
  readonly text: string
  readonly arrivedAt: number
}

export interface MailVerdicts {
  /** Mails subscribers must get: incident and maintenance events of public items, from acknowledged changes. */
  readonly expected: number
  readonly delivered: number
  readonly lost: number
  /** Events mailed more than once, and of those, with no dispatcher kill between two copies. */
  readonly duplicated: number
  readonly duplicatedWithoutKill: number
  /** Mails of no event, of an event of a private item, or that name no single event. */
  readonly unexpected: number
  readonly ofIndeterminateChanges: number
  readonly problems: ReadonlyArray<string>
}

const headlines: Record<string, EventName> = {
  "New incident": "incident.created",
  "Incident updated": "incident.updated",
  "Incident resolved": "incident.resolved",
  "Maintenance scheduled": "maintenance.scheduled",
  "Maintenance started": "maintenance.started",
  "Maintenance completed": "maintenance.completed"
}

/**
 * The event a notification mail is about: the kind from its subject (`[Org] New incident: …`),
 * and the event from the incident message the mail quotes (its third line, the description,
 * which must be exactly one operation's marker) or from the window's title. Titles repeat in
 * every mail of an incident, so they never identify an incident's event.
 */
export const mailKey = (mail: Mail): string | undefined => {
  const subject = /^\[[^\]]*\] ([A-Za-z ]+): (.*)$/.exec(mail.subject)
  const event = subject === null ? undefined : headlines[subject[1]!]
  if (event === undefined) return undefined
  if (event.startsWith("maintenance.")) return `${event}|${subject![2]}`
  const description = mail.text.split("\n")[2]?.trim() ?? ""
  return /^op-\d+$/.test(description) ? `${event}|${description}` : undefined
}

/** A kill of the dispatcher, between the moment it was sent and the moment the process was gone. */
export interface Kill {
  readonly from: number
  readonly to: number
}

/** How late the scenario may notice a mail's arrival (it polls the SMTP capture). */
const arrivalSlackMs = 100

export const judgeMail = (options: {
  readonly expected: ReadonlyArray<ExpectedEvent>
  readonly mails: ReadonlyArray<Mail>
  readonly kills: ReadonlyArray<Kill>
}): MailVerdicts => {
  const byKey = new Map(options.expected.map((event) => [event.key, event]))
  const arrivals = new Map<string, Array<number>>()
  const problems: Array<string> = []
  let unexpected = 0
  let ofIndeterminate = 0
  for (const mail of options.mails) {
    const key = mailKey(mail)
    const event = key === undefined ? undefined : byKey.get(key)
    if (event === undefined || !event.mailed) {
      unexpected++
      problems.push(`unexpected mail "${mail.subject}" (${event === undefined ? "no such event" : "a private item"})`)
      continue
    }
    if (!event.required) ofIndeterminate++
    arrivals.set(event.key, [...(arrivals.get(event.key) ?? []), mail.arrivedAt])
  }
  let expected = 0
  let delivered = 0
  let duplicated = 0
  let duplicatedWithoutKill = 0
  for (const event of options.expected) {
    if (!event.mailed) continue
    const times = (arrivals.get(event.key) ?? []).sort((a, b) => a - b)
    if (times.length > 1) {
      duplicated++
      // A copy is sent again only when the dispatcher died after the server took it and before
      // it was recorded (docs/notifications.md, "Mail"): a kill must fall between two copies.
      const explained = times.slice(1).every((later, i) =>
        options.kills.some((kill) => kill.to >= times[i]! - arrivalSlackMs && kill.from <= later)
      )
      if (!explained) {
        duplicatedWithoutKill++
        problems.push(`${event.key} mailed ${times.length} times with no dispatcher kill between`)
      }
    }
    if (!event.required) continue
    expected++
    if (times.length > 0) delivered++
    else if (problems.length < 200) problems.push(`never mailed: ${event.key}`)
  }
  return {
    expected,
    delivered,
    lost: expected - delivered,
    duplicated,
    duplicatedWithoutKill,
    unexpected,
    ofIndeterminateChanges: ofIndeterminate,
    problems
  }
}
