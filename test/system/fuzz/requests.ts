/**
 * Builds one request for an operation in one category. Every operation gets every category in
 * turn, so each sees valid, invalid, hostile and malformed input, missing and forged
 * credentials, and deliberate deviations the strict API must refuse (deviations.ts).
 */
import * as fc from "fast-check"

import type { Expectation } from "./deviations.js"
import {
  badValuesOf,
  failingIfMatch,
  malformedIdempotencyKey,
  roller,
  tamperedCursor,
  unknownParameter,
  withUnknownField
} from "./deviations.js"
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

export const categories = ["valid", "invalid", "hostile", "malformed", "anonymous", "forged", "strict"] as const
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
  "forged",
  "strict"
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
  /** Category `strict`: what the one deliberate deviation must get. */
  readonly expect?: Expectation | undefined
  /** Sent twice (a valid `Idempotency-Key`): the second answer must replay the first. */
  readonly repeat?: boolean | undefined
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
  const valid = param.name === "id" && op.id === "monitors.rotatePushToken"
    // Only a push monitor has a token to rotate: one the fuzzer made (runFuzz keeps them apart).
    ? ctx.idFor("push-monitors")
    : param.name === "id" && op.resource !== undefined
    ? ctx.idFor(op.resource, op.method === "DELETE" ? "delete" : undefined)
    : param.name === "slug"
    // The default page is always there (a random slug names no page: 404).
    ? fc.constant("default")
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

/** Mostly a cursor a `Link` of this list gave, else none: a made-up cursor is a 400 (category `strict` sends those). */
const learnedCursor = (op: Operation, ctx: Context): fc.Arbitrary<string | undefined> =>
  mostlyKnown<string | undefined>(() => ctx.cursorsOf(op.id), fc.constant(undefined))

/**
 * A value for each declared query parameter, in `op.queryParams` order, or undefined to leave it
 * out (never a required one when valid).
 */
const queryValues = (op: Operation, input: Input, ctx: Context): fc.Arbitrary<Array<string | undefined>> => {
  const values = fc.tuple(...op.queryParams.map((param) => {
    if (input === "valid" && param.name === "cursor") return learnedCursor(op, ctx)
    const value = input === "valid"
      ? validOf(param.schema, ctx, param.name).map(asParamString)
      : input === "invalid"
      ? fc.oneof(fc.constantFrom("-1", "0", "101", "abc", "1.5", "", "OPERATIONAL"), fc.string({ maxLength: 10 }))
      : hostileString.map((s) => s.slice(0, 1000))
    return input === "valid" && param.required ? value : fc.option(value, { nil: undefined, freq: 3 })
  }))
  // One-click unsubscribe names an address and its token: a pair from the mail works.
  const email = op.queryParams.findIndex((p) => p.name === "email")
  const token = op.queryParams.findIndex((p) => p.name === "token")
  if (input !== "valid" || email < 0 || token < 0) return values
  return fc.tuple(values, mostlyKnown<UnsubscribeLink | undefined>(ctx.unsubscribeLinks, fc.constant(undefined)))
    .map(([drawn, link]) =>
      link === undefined
        ? drawn
        : drawn.map((value, i) => (i === email ? link.email : i === token ? link.token : value))
    )
}

const pairsOf = (op: Operation, values: ReadonlyArray<string | undefined>) =>
  op.queryParams.flatMap((param, i) => values[i] === undefined ? [] : [`${encode(param.name)}=${encode(values[i])}`])

const joinQuery = (pairs: ReadonlyArray<string>) => (pairs.length === 0 ? "" : `?${pairs.join("&")}`)

const queryString = (op: Operation, input: Input, ctx: Context): fc.Arbitrary<string> => {
  const extras = input === "valid"
    ? fc.constant<Array<string>>([])
    : fc.array(
      fc.oneof(
        fc.constantFrom("unknown=1", "limit=1&limit=2", "status[]=x", "__proto__[x]=1", "%00=1", "a=%zz", "=", "&&&"),
        fc.tuple(hostileString, hostileString).map(([k, v]) => `${encode(k.slice(0, 200))}=${encode(v.slice(0, 2000))}`)
      ),
      { maxLength: 2 }
    )
  return fc.tuple(queryValues(op, input, ctx), extras).map(([values, more]) =>
    joinQuery([...pairsOf(op, values), ...more])
  )
}

/** A body the service should accept; a valid sign-in is an administrator's, so only with the credentials the run was given. */
const validBody = (op: Operation, ctx: Context): fc.Arbitrary<unknown> =>
  op.id === "auth.signIn" && ctx.signIn !== undefined
    ? fc.constant({ email: ctx.signIn.email, password: ctx.signIn.password })
    : validOf(op.body!.schema, ctx)

const bodyFor = (op: Operation, input: Input, ctx: Context): fc.Arbitrary<string | undefined> => {
  if (op.body === undefined) {
    // Operations without a body still get one now and then: it must be ignored or refused cleanly.
    return input === "valid"
      ? fc.constant(undefined)
      : fc.option(hostileValue.map(toJsonText), { nil: undefined, freq: 2 })
  }
  const value = input === "valid"
    ? validBody(op, ctx)
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

const pathArb = (op: Operation, valueOf: (param: Parameter) => fc.Arbitrary<string>) =>
  fc.tuple(...op.pathParams.map(valueOf)).map((values) => {
    let path = op.path
    op.pathParams.forEach((p, i) => (path = path.replace(`{${p.name}}`, values[i]!)))
    return path
  })

/** The resource a path names: the path up to its first parameter (`…/monitors/x` of `…/monitors/x/pause`). */
export const resourcePathOf = (op: Operation, path: string) => {
  const at = op.path.split("/").findIndex((segment) => segment.startsWith("{"))
  return at < 0 ? path : path.split("/").slice(0, at + 1).join("/")
}

/** Whether the operation takes a request header (`If-Match`, `Idempotency-Key`, `If-None-Match`). */
export const takesHeader = (op: Operation, name: string) =>
  op.headerParams.some((param) => param.name.toLowerCase() === name.toLowerCase())

/**
 * The conditional and retry headers a valid request sometimes carries, from what the run learned:
 * `If-Match` `*` or the resource's last ETag (which may be stale by now: 412), `If-None-Match`
 * the last ETag of the same read (304) or `*`, and a fresh `Idempotency-Key`, sometimes sent
 * twice so that the second answer is a replay.
 */
const validHeaders = (op: Operation, ctx: Context) =>
  fc.tuple(fc.nat(5), fc.nat(4), fc.nat(3), fc.uuid()).map(([ifMatch, ifNoneMatch, retry, key]) =>
  (
    path: string,
    target: string
  ): { headers: Record<string, string>; repeat: boolean } => {
    const headers: Record<string, string> = {}
    if (takesHeader(op, "If-Match")) {
      const current = ctx.entityTagOf(resourcePathOf(op, path))
      // One in six: a tag read earlier may be stale by now (412), and a write that rarely gets
      // through (a monitor's update must also pass its rules across fields) must still get through.
      if (ifMatch === 0) headers["if-match"] = "*"
      else if (ifMatch === 1 && current !== undefined) headers["if-match"] = current
    }
    if (takesHeader(op, "If-None-Match")) {
      const current = ctx.entityTagOf(target)
      if (ifNoneMatch <= 1 && current !== undefined) headers["if-none-match"] = current
      else if (ifNoneMatch === 2) headers["if-none-match"] = "*"
    }
    const keyed = takesHeader(op, "Idempotency-Key") && retry <= 1
    if (keyed) headers["idempotency-key"] = `fuzz-${key}`
    return { headers, repeat: keyed && retry === 1 }
  })

type Deviation = "bodyField" | "unknownQuery" | "badQueryValue" | "ifMatch" | "idempotencyKey"

/** The deviations an operation can be given, a body field and a query value twice as often as the others. */
const deviationsOf = (op: Operation, ctx: Context): Array<Deviation> => [
  ...(op.body === undefined ? [] : ["bodyField", "bodyField"] as const),
  ...(op.refusesUnknownQuery ? ["unknownQuery"] as const : []),
  ...(op.queryParams.some((p) => p.name === "cursor" || badValuesOf(p.schema, ctx.resolve).length > 0)
    ? ["badQueryValue", "badQueryValue"] as const
    : []),
  ...(takesHeader(op, "If-Match") ? ["ifMatch"] as const : []),
  ...(takesHeader(op, "Idempotency-Key") ? ["idempotencyKey"] as const : [])
]

/**
 * Category `strict`: a valid request (the run's key, a known id, a valid body and query) with
 * exactly one deviation, and what its answer must be. An operation that takes any query and has
 * nothing else to get wrong (the feeds, the health probes) gets an unknown parameter and no
 * expectation.
 */
const strictRequestArb = (op: Operation, ctx: Context, apiKey: string): fc.Arbitrary<FuzzRequest> => {
  const path = pathArb(op, (p) => pathValue(op, p, "valid", ctx))
  const body = op.body === undefined ? fc.constant(undefined) : validBody(op, ctx)
  const deviations = deviationsOf(op, ctx)
  const dice = fc.array(fc.nat(), { minLength: 8, maxLength: 8 })
  return fc.tuple(path, queryValues(op, "valid", ctx), body, dice).map(([path, values, bodyValue, numbers]) => {
    const roll = roller(numbers)
    let query = pairsOf(op, values)
    let sent = bodyValue
    const headers: Record<string, string> = {}
    let expect: Expectation | undefined
    const unknownQuery = () => {
      const name = unknownParameter(op.queryParams.map((p) => p.name), roll)
      query = [...query, `${encode(name)}=1`]
      return op.refusesUnknownQuery
        ? { kind: "unknownQuery", what: `the unknown query parameter ${name}`, path: [name] } satisfies Expectation
        : undefined
    }
    switch (deviations.length === 0 ? "unknownQuery" : deviations[roll(deviations.length)]!) {
      case "bodyField": {
        const changed = withUnknownField(op.body!.schema, bodyValue, ctx.resolve, roll)
        // A body with no closed object (a null one): the query instead, when it is strict.
        if (changed === undefined) expect = unknownQuery()
        else [sent, expect] = [changed.value, changed.expect]
        break
      }
      case "unknownQuery":
        expect = unknownQuery()
        break
      case "badQueryValue": {
        const params = op.queryParams.filter((p) =>
          p.name === "cursor" || badValuesOf(p.schema, ctx.resolve).length > 0
        )
        const param = params[roll(params.length)]!
        const bad = badValuesOf(param.schema, ctx.resolve)
        const value = param.name === "cursor" && (bad.length === 0 || roll(3) > 0)
          ? tamperedCursor(ctx.cursorsOf(op.id), ctx.cursorsBesides(op.id), roll)
          : bad[roll(bad.length)]!
        query = [
          ...pairsOf(op, values.map((v, i) => (op.queryParams[i] === param ? undefined : v))),
          `${encode(param.name)}=${encode(value)}`
        ]
        expect = { kind: "badQueryValue", what: `${param.name}=${value}`, path: [param.name] }
        break
      }
      case "ifMatch": {
        const resource = resourcePathOf(op, path)
        const failing = failingIfMatch(ctx.entityTagOf(resource), ctx.staleEntityTagsOf(resource), roll)
        headers["if-match"] = failing.value
        expect = failing.expect
        break
      }
      case "idempotencyKey": {
        const malformed = malformedIdempotencyKey(roll)
        headers["idempotency-key"] = malformed.value
        expect = malformed.expect
        break
      }
    }
    return {
      category: "strict",
      credentials: "key",
      method: op.method,
      target: path + joinQuery(query),
      headers: {
        accept: "application/json",
        authorization: `Bearer ${apiKey}`,
        ...headers,
        ...(op.body === undefined ? {} : { "content-type": "application/json" })
      },
      body: op.body === undefined ? undefined : toJsonText(sent),
      expect
    }
  })
}

export const requestArb = (
  op: Operation,
  category: Category,
  ctx: Context,
  apiKey: string
): fc.Arbitrary<FuzzRequest> => {
  if (category === "strict") return strictRequestArb(op, ctx, apiKey)
  const input: fc.Arbitrary<Input> = category === "anonymous" || category === "forged"
    ? fc.constantFrom<Input>("valid", "valid", "invalid", "hostile")
    : fc.constant(category === "malformed" ? "valid" : category)
  return input.chain((kind) => {
    // With missing or forged credentials, path ids stay in the operation's route, so the answer must be its 401.
    const withoutKey = category === "anonymous" || category === "forged"
    const path = pathArb(
      op,
      (p) => withoutKey && kind !== "valid" ? routableValue : pathValue(op, p, kind, ctx)
    )
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
    const conditional = category === "valid"
      ? validHeaders(op, ctx)
      : fc.constant(() => ({ headers: {}, repeat: false }))
    return fc.tuple(path, queryString(op, kind, ctx), credentials, body, extraHeaders, conditional).map(
      ([path, query, [credentialKind, credentialHeaders], [text, contentType], extra, conditionalHeaders]) => {
        const { headers, repeat } = conditionalHeaders(path, path + query)
        return {
          category,
          credentials: credentialKind,
          method: op.method,
          target: path + query,
          headers: {
            accept: "application/json",
            ...extra,
            ...headers,
            ...credentialHeaders,
            ...(contentType === undefined ? {} : { "content-type": contentType })
          },
          body: text,
          repeat
        } satisfies FuzzRequest
      }
    )
  })
}
