/**
 * One Uptime Kuma monitor (a row of its `monitor` table that is not a `group`) as a component
 * and a monitor of this service, or the reason it cannot be one. Each Kuma type maps to ours as
 * docs/migrating.md ("From Uptime Kuma") tabulates; a setting with no counterpart is dropped
 * with a note, and one whose loss would change what the check means (upside-down mode, an HTTP
 * method or a sign-in ours cannot make) skips the monitor. What comes out is checked against the
 * API's schemas and the monitor rules (`definitionIssues`), so the import is not refused later.
 */
import { Effect } from "effect"

import type { ComponentStatus } from "../../domain/Component.js"
import { ComponentEntry, MonitorEntry } from "../../domain/Configuration.js"
import type { SkippedRecord } from "../../domain/ImportBundle.js"
import {
  definitionIssues,
  type MonitorDefinition,
  monitorLimits,
  type MonitorType,
  normalizeTarget,
  typeDefaults
} from "../../domain/Monitor.js"
import { pushTokenPattern } from "../../domain/PushToken.js"
import type { ImportSourceError } from "./ImportSourceError.js"
import { kumaHttpCheck, kumaServiceCheck } from "./kumaChecks.js"
import { checkedEntry, flag, jsonColumn, type KumaRow, num, recordName, skip, text } from "./KumaRow.js"

export type MonitorFields = Omit<typeof MonitorEntry.Encoded, "key" | "component">
type ComponentFields = Pick<typeof ComponentEntry.Encoded, "name" | "description">

/** What a check of one type came to: its fields, or why it cannot be imported. */
export type CheckOutcome = MonitorFields | { readonly unsupported: string }

/** A dropped setting: the column and why. */
export type Note = (column: string, reason: string) => void

export type KumaMonitorOutcome =
  | {
    readonly _tag: "Imported"
    readonly component: ComponentFields
    /** Null for Kuma's `manual` monitors: a component whose status is set by hand. */
    readonly monitor: MonitorFields | null
    readonly status: ComponentStatus | null
    readonly notes: ReadonlyArray<SkippedRecord>
  }
  | { readonly _tag: "Skipped"; readonly skipped: SkippedRecord }

/** The key of the component and of the monitor made for Kuma's monitor `id` (keys are per kind). */
export const monitorKey = (id: number) => `uptime-kuma/monitor/${id}`

/** Kuma's types that have no check here, with what they do. */
const unsupported: Readonly<Record<string, string>> = {
  docker: "it asks a Docker host about a container, which probes do not reach",
  "real-browser": "it loads the page in a browser; our http check makes one request",
  gamedig: "it queries a game server",
  steam: "it queries a Steam game server",
  "kafka-producer": "it produces a message to Kafka",
  sqlserver: "there is no SQL Server check here",
  mongodb: "there is no MongoDB check here",
  radius: "there is no RADIUS check here",
  "tailscale-ping": "it pings through Tailscale",
  rabbitmq: "it reads RabbitMQ's management API; our amqp check needs an amqp:// address and password, which it has not"
}

/** Kuma's manual statuses (DOWN 0, UP 1, PENDING 2, MAINTENANCE 3) as a component's status. */
const manualStatuses: Readonly<Record<number, ComponentStatus>> = {
  0: "major_outage",
  1: "operational",
  2: "degraded",
  3: "maintenance"
}

const clamp = (value: number, { min, max }: { readonly min: number; readonly max: number }) =>
  Math.min(max, Math.max(min, value))

/** Interval, time-out, threshold and pause: the fields every check has. */
const commonFields = (row: KumaRow, type: MonitorType, note: Note) => {
  const kumaInterval = num(row, "interval") ?? monitorLimits.intervalSeconds.default
  const intervalSeconds = clamp(Math.round(kumaInterval), monitorLimits.intervalSeconds)
  if (intervalSeconds !== kumaInterval) {
    note("interval", `${kumaInterval} s is outside our 10 s to 24 h: checked every ${intervalSeconds} s`)
  }
  // Kuma's retries are the failures after the first before it calls a monitor down.
  const retries = Math.max(0, Math.round(num(row, "maxretries") ?? 0))
  const failureThreshold = clamp(retries + 1, monitorLimits.failureThreshold)
  if (failureThreshold !== retries + 1) {
    note("maxretries", `${retries} retries is more than ours: down after ${failureThreshold} failed checks`)
  }
  const timeout = num(row, "timeout")
  let timeoutMs: number | undefined
  // Kuma reads a time-out of 0 as its default, 80% of the interval; ours has its own default.
  if (type !== "push" && timeout !== null && timeout > 0) {
    const wanted = Math.round(timeout * 1000)
    const bounded = clamp(wanted, monitorLimits.timeoutMs)
    // Ours must end within the interval; Kuma's own default is 80% of it.
    timeoutMs = bounded >= intervalSeconds * 1000 ? intervalSeconds * 800 : bounded
    if (timeoutMs !== wanted) {
      note(
        "timeout",
        timeoutMs === bounded
          ? `${timeout} s is outside our 0.1 s to 60 s: ${timeoutMs / 1000} s`
          : `${timeout} s does not end within the ${intervalSeconds} s interval: ${timeoutMs / 1000} s, 80% of it`
      )
    }
  }
  return {
    intervalSeconds,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    failureThreshold,
    ...(flag(row, "active") ? {} : { paused: true })
  }
}

/** The host of a `port` or `ping` monitor as a URL host (IPv6 in brackets). */
const urlHost = (host: string) => host.includes(":") && !host.startsWith("[") ? `[${host}]` : host

const checkOf = (
  row: KumaRow,
  type: string,
  note: Note,
  json: (column: string) => Effect.Effect<unknown, ImportSourceError>
): Effect.Effect<CheckOutcome, ImportSourceError> =>
  Effect.gen(function*() {
    const hostname = text(row, "hostname")?.trim() ?? ""
    switch (type) {
      case "http":
      case "keyword":
      case "json-query":
        return kumaHttpCheck(row, type, note, yield* json("accepted_statuscodes_json"), yield* json("headers"))
      case "port": {
        const port = num(row, "port")
        return { type: "tcp", url: `${urlHost(hostname)}:${port ?? ""}` }
      }
      case "ping": {
        const count = num(row, "ping_count")
        const pingCount = count === null ? undefined : clamp(Math.round(count), monitorLimits.pingCount)
        if (count !== null && pingCount !== count) note("ping_count", `${count} pings: ${pingCount} here`)
        return { type: "icmp", url: hostname, ...(pingCount === undefined ? {} : { pingCount }) }
      }
      case "dns":
        return kumaServiceCheck.dns(row, hostname, note, yield* json("conditions"))
      case "push": {
        const token = text(row, "push_token")
        if (token !== null && !pushTokenPattern.test(token)) {
          note(
            "push_token",
            "is not 8-128 of A-Z, a-z, 0-9, '_', '-': the service makes a new one, so the job's URL changes"
          )
        }
        return { type: "push", ...(token !== null && pushTokenPattern.test(token) ? { pushToken: token } : {}) }
      }
      case "postgres":
      case "mysql":
      case "redis":
        return kumaServiceCheck.database(row, type, note)
      case "mqtt":
        return kumaServiceCheck.mqtt(row, hostname, note, yield* json("conditions"))
      case "grpc-keyword":
        return kumaServiceCheck.grpc(row, note, yield* json("grpc_body"), yield* json("grpc_metadata"))
      default:
        return {
          unsupported: unsupported[type] ??
            `there is no check of this kind here (ours: http, keyword, json-query, port, ping, dns, push, postgres, mysql, redis, mqtt, grpc health)`
        }
    }
  })

/** What the service would make of `fields` (its defaults), for the rules across fields. */
const definitionOf = (fields: MonitorFields): MonitorDefinition => {
  const interval = fields.intervalSeconds ?? monitorLimits.intervalSeconds.default
  const defaults = typeDefaults(fields.type)
  return {
    ...defaults,
    componentId: "import" as MonitorDefinition["componentId"],
    type: fields.type,
    url: fields.url ?? "",
    intervalSeconds: interval,
    timeoutMs: fields.timeoutMs ?? Math.min(monitorLimits.timeoutMs.default, interval * 500),
    failureThreshold: fields.failureThreshold ?? monitorLimits.failureThreshold.default,
    regions: null,
    quorum: "majority",
    degradedAboveMs: null,
    method: fields.method ?? defaults.method,
    headers: fields.headers ?? null,
    body: fields.body ?? null,
    expectedStatusCodes: fields.expectedStatusCodes ?? defaults.expectedStatusCodes,
    bodyContains: fields.bodyContains ?? null,
    bodyNotContains: fields.bodyNotContains ?? null,
    assertions: fields.assertions ?? null,
    dnsRecordType: fields.dnsRecordType ?? defaults.dnsRecordType,
    dnsExpectedValues: fields.dnsExpectedValues ?? null,
    password: fields.password ?? null,
    grpcService: fields.grpcService ?? null,
    pingCount: fields.pingCount ?? defaults.pingCount,
    graceSeconds: fields.type === "push" ? Math.min(monitorLimits.graceSeconds.default, interval) : null,
    incidentPolicy: "off",
    incidentTemplateId: null,
    resolveAfterSeconds: monitorLimits.resolveAfterSeconds.default
  }
}

/** Kuma's monitor `row` (not a group) as this service's component and monitor, or why not. */
export const kumaMonitor = (row: KumaRow): Effect.Effect<KumaMonitorOutcome, ImportSourceError> =>
  Effect.gen(function*() {
    const name = text(row, "name") ?? ""
    const type = text(row, "type") ?? ""
    const record = recordName("monitor", row, name)
    const skipped = (reason: string): KumaMonitorOutcome => ({
      _tag: "Skipped",
      skipped: skip(`${record} (type ${type})`, reason)
    })
    const notes: Array<SkippedRecord> = []
    const note: Note = (column, reason) => notes.push(skip(`${record}: ${column}`, reason))
    const description = text(row, "description")
    const component = { name, ...(description === null ? {} : { description }) }
    const checkedComponent = checkedEntry(ComponentEntry, { key: monitorKey(0), ...component })
    if ("problem" in checkedComponent) return skipped(`its component would be refused: ${checkedComponent.problem}`)

    if (type === "manual") {
      const status = manualStatuses[num(row, "manual_status") ?? -1] ?? null
      note("type", "a manual monitor is a component here, without a monitor: its status is set by hand")
      return { _tag: "Imported", component, monitor: null, status, notes }
    }
    // Up when the check fails: no check here reads its result the other way round.
    if (flag(row, "upside_down")) return skipped("upside-down mode (up when the check fails) has no counterpart here")
    const check = yield* checkOf(row, type, note, (column) => jsonColumn(record, row, column))
    if ("unsupported" in check) return skipped(check.unsupported)

    const target = check.type === "push" ? undefined : normalizeTarget(check.type, check.url ?? "")
    if (target !== undefined && "problem" in target) {
      return skipped(`its address ${JSON.stringify(check.url ?? "")}: ${target.problem}`)
    }
    const monitor: MonitorFields = {
      ...check,
      ...(target === undefined ? {} : { url: target.url }),
      ...commonFields(row, check.type, note)
    }
    const issues = definitionIssues(definitionOf(monitor))
    if (issues.length > 0) {
      return skipped(
        `it would be refused: ${issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`
      )
    }
    const checkedMonitor = checkedEntry(MonitorEntry, { key: monitorKey(0), component: monitorKey(0), ...monitor })
    if ("problem" in checkedMonitor) return skipped(`it would be refused: ${checkedMonitor.problem}`)
    return { _tag: "Imported", component, monitor, status: null, notes }
  })
