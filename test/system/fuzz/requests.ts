/**
 * Builds one request for an operation in one category. Every operation gets every category in
 * turn, so each sees valid, invalid, hostile and malformed input and missing and forged
 * credentials.
 */
import * as fc from "fast-check"

import type { Operation, Parameter } from "./openapi.js"
import type { Context, UnsubscribeLink } from "./values.js"
import {
  ALPHANUMERIC,
  charsOf,
  hostileOf,
  hostileString,
  hostileValue,
  invalidOf,
  mostlyKnown,
  toJsonText,
  validOf
} from "./values.js"

export const categories = ["valid", "invalid", "hostile", "malformed", "anonymous", "forged"] as const
export type Category = typeof categories[number]

/** The cycle of categories: valid and hostile input get a double share. */
export const cycle: ReadonlyArray<Category> = [
  "valid",
  "hostile",
  "invalid",
  "anonymous",
  "valid",
  "malformed",
  "hostile",
  "forged"
]

export type Credentials = "key" | "none" | "forged"

export interface FuzzRequest {
  readonly category: Category
  readonly credentials: Credentials
  readonly method: string
  /** Path and query, already encoded. */
  readonly target: string
  readonly headers: Record<string, string>
  readonly body: string | undefined
}

type Input = "valid" | "invalid" | "hostile"

/** Path segments sent as they are (not percent-encoded again): broken escapes, dot segments. */
const rawSegments = [
  "%",
  "%zz",
  "%E0%A4%A",
  "%00",
  "%FF%FE",
  "..",
  ".",
  "%2e%2e",
  "a%2Fb",
  "..%2F..%2Fetc%2Fpasswd",
  "%C0%AF",
  "x;y",
  "%20"
]

const encode = (value: string) => {
  try {
    return encodeURIComponent(value)
  } catch {
    // A lone surrogate cannot be encoded as UTF-8: send the bytes such a client would.
    return encodeURIComponent(value.replace(/[\uD800-\uDFFF]/g, "")) + "%ED%A0%80"
  }
}

const asParamString = (value: unknown): string =>
  typeof value === "string" ? value : value === undefined ? "" : toJsonText(value).replace(/^"|"$/g, "")

const pathValue = (op: Operation, param: Parameter, input: Input, ctx: Context): fc.Arbitrary<string> => {
  const valid = param.name === "id" && op.resource !== undefined
    ? ctx.idFor(op.resource)
    : validOf(param.schema, ctx, param.name).map(asParamString)
  switch (input) {
    case "valid":
      return valid.map(encode)
    case "invalid":
      return fc.oneof(
        fc.uuid(),
        fc.constant("x".repeat(101)),
        fc.string({ minLength: 1, maxLength: 20 }),
        valid.map((v) => `${v}x`)
      )
        .map(encode)
    case "hostile":
      // Never empty: `/components/` is another route, not this operation with a strange id.
      return fc.oneof(
        { arbitrary: hostileString.filter((s) => s.length > 0).map((s) => encode(s.slice(0, 300))), weight: 12 },
        { arbitrary: fc.constantFrom(...rawSegments), weight: 4 },
        // A request line over Node's 16 KB header limit.
        { arbitrary: fc.constant("x".repeat(17_000)), weight: 1 }
      )
  }
}

/**
 * Path values that stay within the router's routes (non-empty, at most 100 characters encoded:
 * a longer one is no route at all, 404), for requests whose answer must be the operation's 401.
 */
const routableValue: fc.Arbitrary<string> = fc.oneof(
  fc.uuid(),
  charsOf(`${ALPHANUMERIC}._~-`, 1, 100),
  fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 33 }).map(encode),
  fc.constantFrom("__proto__", "constructor", "%27%20OR%201%3D1", "%F0%9D%95%B3", "%E2%80%AE")
)

const queryString = (op: Operation, input: Input, ctx: Context): fc.Arbitrary<string> => {
  const pairs = op.queryParams.map((param) => {
    const value = input === "valid"
      ? validOf(param.schema, ctx, param.name).map(asParamString)
      : input === "invalid"
      ? fc.oneof(fc.constantFrom("-1", "0", "101", "abc", "1.5", "", "OPERATIONAL"), fc.string({ maxLength: 10 }))
      : hostileString.map((s) => s.slice(0, 1000))
    return fc.option(value.map((v) => `${encode(param.name)}=${encode(v)}`), { nil: undefined, freq: 3 })
  })
  const extras = input === "valid"
    ? fc.constant<Array<string>>([])
    : fc.array(
      fc.oneof(
        fc.constantFrom("unknown=1", "limit=1&limit=2", "status[]=x", "__proto__[x]=1", "%00=1", "a=%zz", "=", "&&&"),
        fc.tuple(hostileString, hostileString).map(([k, v]) => `${encode(k.slice(0, 200))}=${encode(v.slice(0, 2000))}`)
      ),
      { maxLength: 2 }
    )
  const query = fc.tuple(fc.tuple(...pairs), extras).map(([params, more]) => {
    const all = [...params.filter((p): p is string => p !== undefined), ...more]
    return all.length === 0 ? "" : `?${all.join("&")}`
  })
  // One-click unsubscribe names an address and its token: a pair from the mail works.
  const linked = input === "valid" && ["email", "token"].every((name) => op.queryParams.some((p) => p.name === name))
  return linked
    ? fc.tuple(query, mostlyKnown<UnsubscribeLink | undefined>(ctx.unsubscribeLinks, fc.constant(undefined))).map((
      [built, link]
    ) => link === undefined ? built : `?email=${encode(link.email)}&token=${encode(link.token)}`)
    : query
}

const bodyFor = (op: Operation, input: Input, ctx: Context): fc.Arbitrary<string | undefined> => {
  if (op.body === undefined) {
    // Operations without a body still get one now and then: it must be ignored or refused cleanly.
    return input === "valid"
      ? fc.constant(undefined)
      : fc.option(hostileValue.map(toJsonText), { nil: undefined, freq: 2 })
  }
  // A valid sign-in is an administrator's; only with the credentials the run was given can it succeed.
  if (input === "valid" && op.id === "auth.signIn" && ctx.signIn !== undefined) {
    return fc.constant(toJsonText({ email: ctx.signIn.email, password: ctx.signIn.password }))
  }
  const value = input === "valid"
    ? validOf(op.body.schema, ctx)
    : input === "invalid"
    ? invalidOf(op.body.schema, ctx)
    : hostileOf(op.body.schema, ctx)
  return value.map(toJsonText)
}

/** Bodies that are not JSON, or JSON under the wrong content type. */
const malformedBodies = [
  "",
  "{",
  "{\"name\":}",
  "{\"name\": \"x\",}",
  "[",
  "nul",
  "undefined",
  "{'name': 'x'}",
  "\u0000",
  "\uFEFF{\"name\":\"x\"}",
  "{\"a\":1}{\"b\":2}",
  "{\"name\":\"x\",\"name\":5}",
  "{\"__proto__\":{\"polluted\":true},\"constructor\":{\"prototype\":{\"x\":1}}}",
  "\"just a string\"",
  "1e400",
  "[".repeat(100_000),
  `${"{\"a\":".repeat(5000)}1${"}".repeat(5000)}`,
  `{"name":"${"A".repeat(1024 * 1024)}"`,
  "name=x&status=operational",
  "--x\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nx\r\n--x--\r\n",
  "name=x",
  "<xml><name>x</name></xml>"
]

const contentTypes = [
  undefined,
  "application/json",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "multipart/form-data",
  "application/xml",
  "application/json; charset=utf-16",
  "application/json; charset=latin1",
  "application/octet-stream",
  "*/*",
  "application/vnd.api+json",
  "garbage",
  ";;;"
]

const forgedCredentials = (key: string): fc.Arbitrary<Record<string, string>> =>
  fc.oneof(
    charsOf(ALPHANUMERIC, 32, 32).map((s) => ({ authorization: `Bearer svc_${s}` })),
    fc.constantFrom<Record<string, string>>(
      { authorization: "Bearer svc_" },
      { authorization: "Bearer" },
      { authorization: "Bearer " },
      { authorization: "" },
      { authorization: "Basic YWRtaW5AbG9jYWxob3N0OnBhc3N3b3Jk" },
      { authorization: `Token ${key}` },
      { authorization: `Bearer ${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}` },
      { authorization: `Bearer ${key.slice(0, 12)}` },
      { authorization: `Bearer ${key}${key}` },
      { authorization: `Bearer ${key.toUpperCase() === key ? key.toLowerCase() : key.toUpperCase()}` },
      { authorization: "Bearer ' OR 1=1 --" },
      { authorization: `Bearer svc_${"A".repeat(5000)}` },
      { cookie: "__Host-session=" },
      { cookie: "__Host-session=forged" },
      { cookie: "__Host-session=%00%ff%zz" },
      { cookie: "session=abc; __host-session=abc" },
      { cookie: `__Host-session=${key}` }
    ),
    charsOf(`${ALPHANUMERIC}_-`, 43, 43).map((token) => ({ cookie: `__Host-session=${token}` }))
  )

/** Extra headers a hostile client sends; a bearer key must not be affected by any of them. */
const hostileHeaders = fc.constantFrom<Record<string, string>>(
  {},
  { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
  { "x-forwarded-for": "1.2.3.4, 127.0.0.1", "x-real-ip": "::1" },
  { accept: "application/xml" },
  { "accept-encoding": "gzip, br, zstd" },
  { "if-none-match": "\"*\"" }
)

export const requestArb = (
  op: Operation,
  category: Category,
  ctx: Context,
  apiKey: string
): fc.Arbitrary<FuzzRequest> => {
  const input: fc.Arbitrary<Input> = category === "anonymous" || category === "forged"
    ? fc.constantFrom<Input>("valid", "valid", "invalid", "hostile")
    : fc.constant(category === "malformed" ? "valid" : category)
  return input.chain((kind) => {
    // With missing or forged credentials, path ids stay in the operation's route, so the answer must be its 401.
    const withoutKey = category === "anonymous" || category === "forged"
    const path = fc.tuple(
      ...op.pathParams.map((p) => withoutKey && kind !== "valid" ? routableValue : pathValue(op, p, kind, ctx))
    ).map((values) => {
      let path = op.path
      op.pathParams.forEach((p, i) => (path = path.replace(`{${p.name}}`, values[i]!)))
      return path
    })
    const credentials: fc.Arbitrary<[Credentials, Record<string, string>]> = category === "anonymous"
      ? fc.constant(["none", {}])
      : category === "forged"
      ? forgedCredentials(apiKey).map((headers) => ["forged", headers])
      : fc.constant(["key", { authorization: `Bearer ${apiKey}` }])
    const body: fc.Arbitrary<[string | undefined, string | undefined]> = category === "malformed"
      ? fc.tuple(fc.constantFrom(...malformedBodies, undefined), fc.constantFrom(...contentTypes))
        .chain(([text, type]) =>
          text === undefined
            // JSON under the wrong content type.
            ? bodyFor(op, "valid", ctx).map((
              json
            ): [string | undefined, string | undefined] => [json ?? "{}", type ?? "text/plain"])
            : fc.constant<[string | undefined, string | undefined]>([text, type])
        )
      : bodyFor(op, kind, ctx).map((
        text
      ): [string | undefined, string | undefined] => [text, text === undefined ? undefined : "application/json"])
    const extraHeaders = category === "hostile" ? hostileHeaders : fc.constant({})
    return fc.tuple(path, queryString(op, kind, ctx), credentials, body, extraHeaders).map(
      ([path, query, [credentialKind, credentialHeaders], [text, contentType], extra]): FuzzRequest => ({
        category,
        credentials: credentialKind,
        method: op.method,
        target: path + query,
        headers: {
          accept: "application/json",
          ...extra,
          ...credentialHeaders,
          ...(contentType === undefined ? {} : { "content-type": contentType })
        },
        body: text
      })
    )
  })
}
