/**
 * The checks of Uptime Kuma's monitor types as this service's (docs/migrating.md, "From Uptime
 * Kuma"): `http`, `keyword` and `json-query` as an http check, and the checks of one service
 * (dns, the databases, mqtt, gRPC health). Each answers the monitor's type-specific fields, or
 * why the Kuma check has no counterpart; a setting lost on the way is noted.
 */
import type { DnsRecordType, HttpMethod } from "../../domain/CheckJob.js"
import { monitorLimits } from "../../domain/Monitor.js"
import { kumaJsonQuery } from "./kumaJsonQuery.js"
import type { CheckOutcome, MonitorFields, Note } from "./kumaMonitor.js"
import { flag, type KumaRow, num, text } from "./KumaRow.js"

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const httpMethods: ReadonlyArray<string> = ["GET", "HEAD", "POST"] satisfies ReadonlyArray<HttpMethod>

/** The header Kuma's sign-in adds (it sends the monitor's own headers after it), or why ours cannot sign in so. */
const authHeaders = (row: KumaRow): { readonly headers: Record<string, string> } | { readonly unsupported: string } => {
  const method = text(row, "auth_method")
  switch (method) {
    case null:
      return { headers: {} }
    case "basic": {
      const user = text(row, "basic_auth_user") ?? ""
      const password = text(row, "basic_auth_pass") ?? ""
      return user === "" && password === ""
        ? { headers: {} }
        : { headers: { Authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}` } }
    }
    case "bearer": {
      const token = text(row, "bearer_token")
      return { headers: token === null ? {} : { Authorization: `Bearer ${token}` } }
    }
    default:
      return {
        unsupported: `it signs in with ${method} (${
          { ntlm: "NTLM", mtls: "a client certificate", "oauth2-cc": "OAuth 2 client credentials" }[method] ?? method
        }), which our http check cannot: only headers, such as Authorization`
      }
  }
}

const statusCodeSpec = /^([1-5]\d\d)(?:-([1-5]\d\d))?$/
const isStatusCodeSpec = (spec: string) => {
  const match = statusCodeSpec.exec(spec)
  return match !== null && Number(match[1]) <= Number(match[2] ?? match[1])
}

/** Kuma's accepted codes (`["200-299", "301"]`), those ours can take. */
const statusCodes = (value: unknown, note: Note): Array<string> => {
  const given = Array.isArray(value) ? value.map((spec) => String(spec).trim()) : []
  const valid = given.filter(isStatusCodeSpec)
  const refused = given.filter((spec) => !isStatusCodeSpec(spec))
  if (!Array.isArray(value) && value !== null) note("accepted_statuscodes_json", "is not a list: 200-299 pass")
  if (refused.length > 0) {
    note(
      "accepted_statuscodes_json",
      `${refused.map((spec) => JSON.stringify(spec)).join(", ")} left out: not a code or range within 100-599`
    )
  }
  if (valid.length === 0) return ["200-299"]
  const max = monitorLimits.expectedStatusCodes.max
  if (valid.length > max) note("accepted_statuscodes_json", `only the first ${max} codes and ranges are kept`)
  return valid.slice(0, max)
}

const hasHeader = (headers: Record<string, string>, name: string) =>
  Object.keys(headers).some((header) => header.toLowerCase() === name)

/** The Content-Type Kuma sent with a form or XML body (ours tells JSON from text by itself). */
const bodyTypes: Readonly<Record<string, string>> = {
  form: "application/x-www-form-urlencoded",
  xml: "text/xml; charset=utf-8"
}

/** An `http`, `keyword` or `json-query` monitor as an http check. */
export const kumaHttpCheck = (
  row: KumaRow,
  type: "http" | "keyword" | "json-query",
  note: Note,
  acceptedCodes: unknown,
  headersJson: unknown
): CheckOutcome => {
  const method = (text(row, "method") ?? "GET").toUpperCase()
  if (!httpMethods.includes(method)) {
    return { unsupported: `it sends ${method}: our http check sends GET, HEAD or POST` }
  }
  const auth = authHeaders(row)
  if ("unsupported" in auth) return auth
  if (headersJson !== null && !isRecord(headersJson)) {
    return { unsupported: "its headers are not a JSON object of names and values" }
  }
  const headers: Record<string, string> = { ...auth.headers }
  for (const [name, value] of Object.entries(headersJson ?? {})) {
    if (typeof value === "object" && value !== null) return { unsupported: `its header ${name} is not text` }
    // Kuma sends its own headers after the sign-in's: one of the same name replaces it.
    for (const own of Object.keys(headers)) if (own.toLowerCase() === name.toLowerCase()) delete headers[own]
    headers[name] = String(value)
  }
  let body = text(row, "body")
  if (body !== null && body.trim() === "") body = null
  if (body !== null && method !== "POST") {
    note("body", `is sent with POST only here; Kuma sent it with ${method}: left out`)
    body = null
  }
  const bodyType = bodyTypes[text(row, "http_body_encoding") ?? "json"]
  if (body !== null && bodyType !== undefined && !hasHeader(headers, "content-type")) headers["Content-Type"] = bodyType
  if (flag(row, "ignore_tls")) {
    note(
      "ignore_tls",
      "has no counterpart: our http check verifies the certificate, so a self-signed or expired one fails it"
    )
  }
  if (num(row, "proxy_id") !== null) {
    note("proxy_id", "has no counterpart: probes call the target directly, not through a proxy")
  }
  if (flag(row, "cache_bust")) note("cache_bust", "has no counterpart: no cache-busting parameter is added")

  const fields: MonitorFields = {
    type: "http",
    url: text(row, "url")?.trim() ?? "",
    method: method as HttpMethod,
    ...(Object.keys(headers).length === 0 ? {} : { headers }),
    ...(body === null ? {} : { body }),
    expectedStatusCodes: statusCodes(acceptedCodes, note)
  }
  if (type === "keyword") {
    const keyword = text(row, "keyword")
    if (keyword === null) {
      note("keyword", "is empty: only the status is checked")
      return fields
    }
    return flag(row, "invert_keyword") ? { ...fields, bodyNotContains: keyword } : { ...fields, bodyContains: keyword }
  }
  if (type === "json-query") {
    const query = kumaJsonQuery(text(row, "json_path"), text(row, "json_path_operator"), text(row, "expected_value"))
    if ("problem" in query) {
      note("json_path", `not imported, ${query.problem}: only the status is checked`)
      return fields
    }
    return { ...fields, assertions: query.assertions }
  }
  return fields
}

const dnsRecordTypes: ReadonlyArray<string> = ["A", "AAAA", "CNAME", "MX", "TXT", "NS"] satisfies ReadonlyArray<
  DnsRecordType
>

/** Kuma's conditions on a DNS answer as values that must be among the answers: `record equals V` only. */
const dnsExpected = (conditions: unknown): ReadonlyArray<string> | null | "unsupported" => {
  if (conditions === null || (Array.isArray(conditions) && conditions.length === 0)) return null
  if (!Array.isArray(conditions) || conditions.length !== 1) return "unsupported"
  const [condition] = conditions as Array<unknown>
  return isRecord(condition) && condition.type === "expression" && condition.variable === "record" &&
      condition.operator === "equals" && typeof condition.value === "string" && condition.value.trim() !== ""
    ? [condition.value.trim()]
    : "unsupported"
}

/** The URL of a database monitor's connection string, its password apart, or why not. */
const databaseSchemes: Readonly<Record<"postgres" | "mysql" | "redis", Readonly<Record<string, string>>>> = {
  postgres: { "postgres:": "postgres", "postgresql:": "postgres" },
  mysql: { "mysql:": "mysql" },
  redis: { "redis:": "redis", "rediss:": "rediss" }
}

const decoded = (text: string) => {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/** A bare host with an optional scheme (`mqtt://host`) or `host:port`: Kuma's hostname and gRPC columns. */
const hostForm = /^(?:([A-Za-z][A-Za-z0-9+.-]*):\/\/)?([^/?#]+)\/?$/

export const kumaServiceCheck = {
  dns: (row: KumaRow, hostname: string, note: Note, conditions: unknown): CheckOutcome => {
    const recordType = (text(row, "dns_resolve_type") ?? "A").toUpperCase()
    if (!dnsRecordTypes.includes(recordType)) {
      return { unsupported: `it resolves ${recordType} records; our dns check resolves A, AAAA, CNAME, MX, TXT or NS` }
    }
    const server = text(row, "dns_resolve_server")
    const port = num(row, "port")
    if (server !== null) {
      note(
        "dns_resolve_server",
        `has no counterpart: the probes ask their own resolvers; Kuma asked ${server}${
          port !== null && port !== 53 ? ` on port ${port}` : ""
        }`
      )
    }
    const expected = dnsExpected(conditions)
    if (expected === "unsupported") {
      note(
        "conditions",
        "not imported: our dns check can require values among the answers, which is Kuma's single `record equals` condition only"
      )
    }
    return {
      type: "dns",
      url: hostname,
      dnsRecordType: recordType as DnsRecordType,
      ...(expected === null || expected === "unsupported" ? {} : { dnsExpectedValues: expected })
    }
  },

  database: (row: KumaRow, type: "postgres" | "mysql" | "redis", note: Note): CheckOutcome => {
    const connection = text(row, "database_connection_string")?.trim() ?? ""
    let url: URL
    try {
      url = new URL(connection)
    } catch {
      return { unsupported: "its connection string is not a URL" }
    }
    const scheme = databaseSchemes[type][url.protocol.toLowerCase()]
    if (scheme === undefined) {
      return {
        unsupported: `its connection string is not a ${Object.keys(databaseSchemes[type]).join("// or ")}// URL`
      }
    }
    const parameters = [...new Set(url.searchParams.keys())]
    if (parameters.length > 0) {
      note(
        "database_connection_string",
        `its parameters (${parameters.join(", ")}) are left out: our ${type} check takes none`
      )
    }
    const query = text(row, "database_query")
    if (type !== "redis" && query !== null && !/^\s*select\s+1\s*;?\s*$/i.test(query)) {
      note("database_query", `has no counterpart: our ${type} check runs SELECT 1`)
    }
    const user = url.username === "" ? "" : `${url.username}@`
    const path = url.pathname === "/" ? "" : url.pathname
    return {
      type,
      url: `${scheme}://${user}${url.host}${path}`,
      ...(url.password === "" ? {} : { password: decoded(url.password) })
    }
  },

  mqtt: (row: KumaRow, hostname: string, note: Note, conditions: unknown): CheckOutcome => {
    const match = hostForm.exec(hostname)
    const scheme = (match?.[1] ?? "mqtt").toLowerCase()
    if (match === null || !["mqtt", "mqtts"].includes(scheme)) {
      return {
        unsupported: ["ws", "wss", "http", "https"].includes(scheme)
          ? "it connects over WebSocket; our mqtt check speaks MQTT over TCP"
          : `its host ${JSON.stringify(hostname)} is not a host name or an mqtt:// address`
      }
    }
    const port = num(row, "port")
    const user = text(row, "mqtt_username")
    const password = text(row, "mqtt_password")
    const host = match[2]!
    const topic = text(row, "mqtt_topic")
    const expected = text(row, "mqtt_check_type") === "json-query" || Array.isArray(conditions) && conditions.length > 0
      ? "a message it judges"
      : `a message${
        text(row, "mqtt_success_message") === null
          ? ""
          : ` containing ${JSON.stringify(text(row, "mqtt_success_message"))}`
      }`
    note(
      "mqtt_topic",
      `has no counterpart: our mqtt check passes when the broker accepts its sign-in; it does not wait for ${expected}${
        topic === null ? "" : ` on ${JSON.stringify(topic)}`
      }`
    )
    return {
      type: "mqtt",
      url: `${scheme}://${user === null ? "" : `${encodeURIComponent(user)}@`}${
        host.includes(":") && !host.startsWith("[") ? `[${host}]` : host
      }${port === null ? "" : `:${port}`}`,
      ...(password === null ? {} : { password })
    }
  },

  grpc: (row: KumaRow, note: Note, body: unknown, metadata: unknown): CheckOutcome => {
    const service = text(row, "grpc_service_name")
    const method = text(row, "grpc_method")
    if (service !== "grpc.health.v1.Health" || method?.toLowerCase() !== "check") {
      return {
        unsupported: `it calls ${service ?? "(no service)"}/${method ?? "(no method)"}; our grpc check calls the ` +
          "standard health check, grpc.health.v1.Health/Check, only"
      }
    }
    const keyword = text(row, "keyword")?.trim() ?? null
    const invert = flag(row, "invert_keyword")
    if (!((keyword === "SERVING" && !invert) || (keyword === "NOT_SERVING" && invert))) {
      return {
        unsupported: `it looks for ${invert ? "the absence of " : ""}${
          JSON.stringify(keyword ?? "")
        } in the answer; our grpc check passes when the answer is SERVING`
      }
    }
    const asked = body === null ? {} : body
    if (
      !isRecord(asked) || Object.keys(asked).some((key) => key !== "service") ||
      !["string", "undefined"].includes(typeof asked.service)
    ) {
      return { unsupported: "its request asks more than a service's health (a body other than {\"service\": \"…\"})" }
    }
    if (isRecord(metadata) && Object.keys(metadata).length > 0) {
      note("grpc_metadata", "has no counterpart: our grpc check sends no metadata")
    }
    const address = hostForm.exec(text(row, "grpc_url")?.trim() ?? "")?.[2] ?? ""
    const grpcService = typeof asked.service === "string" && asked.service !== "" ? asked.service : null
    return {
      type: "grpc",
      url: `${flag(row, "grpc_enable_tls") ? "grpcs" : "grpc"}://${address}`,
      ...(grpcService === null ? {} : { grpcService })
    }
  }
}
