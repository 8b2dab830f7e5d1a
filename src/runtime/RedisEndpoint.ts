/**
 * Where Redis is, as REDIS_URL (or the pair REDIS_SENTINELS + REDIS_SENTINEL_NAME) says: one
 * server (`redis://`, `rediss://`, handed to ioredis as written), or a master found through
 * Redis Sentinel:
 *
 *   redis+sentinel://[user[:password]@]host[:port][,host[:port]…]/<master name>
 *   rediss+sentinel://…   the same over TLS, to the sentinels and to the master
 *
 * The user and password are the master's (an ACL user, as with one server), percent-encoded as
 * in any URL; a sentinel's port defaults to 26379. The sentinels' own password, if they have one,
 * is REDIS_SENTINEL_PASSWORD: a URL carries one password only. Pure: parsed here, connected in
 * src/queue/redis/RedisConnection.ts. A value that does not parse stops the start with a message
 * that never repeats the password.
 */
import { isIPv6 } from "node:net"

import { Config, Effect, Option, Redacted, Result, Schema, SchemaIssue } from "effect"

export interface SentinelAddress {
  readonly host: string
  readonly port: number
}

export type RedisEndpoint =
  | {
    readonly _tag: "Server"
    /** As written: ioredis reads host, port, user, password, database and TLS (`rediss://`) from it. */
    readonly url: string
  }
  | {
    readonly _tag: "Sentinel"
    readonly sentinels: ReadonlyArray<SentinelAddress>
    /** The master's name in the sentinels' configuration (`sentinel monitor <name> …`). */
    readonly name: string
    readonly username: string | undefined
    readonly password: string | undefined
    /** `rediss+sentinel://`: TLS to the sentinels and to the master. */
    readonly tls: boolean
  }

/** The port a sentinel listens on unless told otherwise. */
export const defaultSentinelPort = 26379

/** What Redis allows in a master's name (redis.io, sentinel.conf: "A-z 0-9 and the three characters .-_"). */
const masterNamePattern = /^[A-Za-z0-9._-]{1,255}$/
/** A host name (underscores too: container names have them) or an IPv4 address. */
const hostnamePattern = /^(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]*)(?:\.[A-Za-z0-9_][A-Za-z0-9_-]*)*\.?$/
const sentinelSchemes = /^(rediss?)\+sentinel:\/\//i

const forms = "redis://, rediss://, redis+sentinel:// or rediss+sentinel://"

/** One `host[:port]` of a sentinel list; IPv6 in brackets. */
const parseSentinel = (text: string): Result.Result<SentinelAddress, string> => {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(text)
  const host = match?.[1] ?? match?.[2]
  const valid = host !== undefined &&
    (match![1] !== undefined ? isIPv6(host) : hostnamePattern.test(host))
  const port = match?.[3] === undefined ? defaultSentinelPort : Number(match[3])
  return valid && port >= 1 && port <= 65535
    ? Result.succeed({ host, port })
    : Result.fail(`"${text}" is not a sentinel's host:port (a name or IP address, IPv6 in brackets; port 1–65535)`)
}

/** A comma list of `host[:port]`, at least one. */
export const parseSentinelList = (text: string): Result.Result<ReadonlyArray<SentinelAddress>, string> => {
  const sentinels: Array<SentinelAddress> = []
  for (const item of text.split(",")) {
    const parsed = parseSentinel(item.trim())
    if (Result.isFailure(parsed)) return Result.fail(parsed.failure)
    sentinels.push(parsed.success)
  }
  return Result.succeed(sentinels)
}

const checkName = (name: string): Result.Result<string, string> =>
  masterNamePattern.test(name)
    ? Result.succeed(name)
    : Result.fail(`the master's name must be 1–255 of A-Z, a-z, 0-9, '.', '_', '-', not "${name}"`)

const decode = (part: string): string | undefined => {
  try {
    return decodeURIComponent(part)
  } catch {
    return undefined
  }
}

/**
 * A REDIS_URL. One server's URL is kept as written (ioredis parses it, as before Sentinel was
 * supported); an unknown `scheme://` is refused rather than handed on. A Sentinel URL is parsed
 * whole: no query, no fragment, no database, nothing after the master's name.
 */
export const parseRedisEndpoint = (text: string): Result.Result<RedisEndpoint, string> => {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(text)?.[1]
  const sentinel = sentinelSchemes.exec(text)
  if (sentinel === null) {
    return scheme === undefined || /^rediss?$/i.test(scheme)
      ? Result.succeed({ _tag: "Server", url: text })
      : Result.fail(`a Redis URL starts with ${forms}, not ${scheme}://`)
  }
  const rest = text.slice(sentinel[0].length)
  if (/[?#]/.test(rest)) {
    return Result.fail(
      "a Sentinel URL takes no query or fragment (the sentinels' password is REDIS_SENTINEL_PASSWORD; a ? or # in a password is percent-encoded)"
    )
  }
  const slash = rest.indexOf("/")
  const authority = slash === -1 ? rest : rest.slice(0, slash)
  const at = authority.lastIndexOf("@")
  if (slash === -1 || rest.slice(slash).includes("@")) {
    return Result.fail(
      `a Sentinel URL is ${
        sentinel[1]!.toLowerCase()
      }+sentinel://[user:password@]host:port[,host:port…]/<master name> (a password with @, : or / percent-encoded)`
    )
  }
  const userinfo = at === -1 ? undefined : authority.slice(0, at)
  const colon = userinfo?.indexOf(":") ?? -1
  const username = userinfo === undefined ? undefined : decode(colon === -1 ? userinfo : userinfo.slice(0, colon))
  const password = userinfo === undefined || colon === -1 ? undefined : decode(userinfo.slice(colon + 1))
  if (
    userinfo !== undefined &&
    (username === undefined || (colon !== -1 && password === undefined))
  ) {
    return Result.fail("the user or password of the Sentinel URL is not well percent-encoded")
  }
  const sentinels = parseSentinelList(authority.slice(at + 1))
  if (Result.isFailure(sentinels)) return Result.fail(sentinels.failure)
  const name = checkName(rest.slice(slash + 1))
  if (Result.isFailure(name)) return Result.fail(name.failure)
  return Result.succeed({
    _tag: "Sentinel",
    sentinels: sentinels.success,
    name: name.success,
    username: username === "" ? undefined : username,
    password: password === "" ? undefined : password,
    tls: sentinel[1]!.toLowerCase() === "rediss"
  })
}

const hostOf = ({ host, port }: SentinelAddress) => `${isIPv6(host) ? `[${host}]` : host}:${port}`

/** The Sentinel URL of a parsed endpoint: what REDIS_SENTINELS and REDIS_SENTINEL_NAME stand for. */
export const sentinelUrl = (endpoint: Extract<RedisEndpoint, { _tag: "Sentinel" }>) => {
  const user = endpoint.username === undefined ? "" : encodeURIComponent(endpoint.username)
  const password = endpoint.password === undefined ? "" : `:${encodeURIComponent(endpoint.password)}`
  const userinfo = user === "" && password === "" ? "" : `${user}${password}@`
  return `${endpoint.tls ? "rediss" : "redis"}+sentinel://${userinfo}${
    endpoint.sentinels.map(hostOf).join(",")
  }/${endpoint.name}`
}

/** The failure of a variable that is set but refused; the message names the variable and the rule. */
const invalid = (name: string, message: string) =>
  Effect.fail(
    new Config.ConfigError(
      new Schema.SchemaError(new SchemaIssue.Pointer([name], new SchemaIssue.InvalidValue({ message })))
    )
  )

/**
 * Where Redis is: REDIS_URL, or REDIS_SENTINELS (`host:port,host:port`) with REDIS_SENTINEL_NAME
 * and the master's user in REDIS_USERNAME and REDIS_PASSWORD, made into the Sentinel URL they
 * stand for. None: no Redis (the in-process queue). Checked whole at start: a Sentinel URL that
 * does not parse, half of the pair, both forms at once, REDIS_USERNAME or REDIS_PASSWORD without
 * the pair, and REDIS_SENTINEL_PASSWORD without sentinels are each refused.
 */
export const RedisUrl: Config.Config<Option.Option<Redacted.Redacted<string>>> = Config.all({
  url: Config.option(Config.Redacted("REDIS_URL")),
  sentinels: Config.option(Config.String("REDIS_SENTINELS")),
  name: Config.option(Config.String("REDIS_SENTINEL_NAME")),
  username: Config.option(Config.String("REDIS_USERNAME")),
  password: Config.option(Config.Redacted("REDIS_PASSWORD")),
  sentinelPassword: Config.option(Config.Redacted("REDIS_SENTINEL_PASSWORD"))
}).pipe(
  Config.mapEffect(({ name, password, sentinelPassword, sentinels, url, username }) => {
    const pair = Option.isSome(sentinels) || Option.isSome(name)
    if (Option.isSome(url) && pair) {
      return invalid(
        Option.isSome(sentinels) ? "REDIS_SENTINELS" : "REDIS_SENTINEL_NAME",
        "give either REDIS_URL or REDIS_SENTINELS with REDIS_SENTINEL_NAME, not both"
      )
    }
    const credentials = Option.isSome(username)
      ? "REDIS_USERNAME"
      : Option.isSome(password)
      ? "REDIS_PASSWORD"
      : undefined
    if (credentials !== undefined && !pair) {
      return invalid(
        credentials,
        `${credentials} is the master's user with REDIS_SENTINELS; with REDIS_URL the user goes in the URL`
      )
    }
    let endpoint: RedisEndpoint | undefined
    let fromPair: string | undefined
    if (Option.isSome(url)) {
      const parsed = parseRedisEndpoint(Redacted.value(url.value))
      if (Result.isFailure(parsed)) return invalid("REDIS_URL", `REDIS_URL: ${parsed.failure}`)
      endpoint = parsed.success
    } else if (pair) {
      if (Option.isNone(sentinels) || Option.isNone(name)) {
        return invalid(
          Option.isNone(sentinels) ? "REDIS_SENTINELS" : "REDIS_SENTINEL_NAME",
          "REDIS_SENTINELS and REDIS_SENTINEL_NAME go together"
        )
      }
      const list = parseSentinelList(sentinels.value)
      if (Result.isFailure(list)) return invalid("REDIS_SENTINELS", `REDIS_SENTINELS: ${list.failure}`)
      const checked = checkName(name.value)
      if (Result.isFailure(checked)) return invalid("REDIS_SENTINEL_NAME", `REDIS_SENTINEL_NAME: ${checked.failure}`)
      endpoint = {
        _tag: "Sentinel",
        sentinels: list.success,
        name: checked.success,
        username: Option.getOrUndefined(username),
        password: Option.match(password, { onNone: () => undefined, onSome: Redacted.value }),
        tls: false
      }
      fromPair = sentinelUrl(endpoint)
    }
    if (Option.isSome(sentinelPassword) && endpoint?._tag !== "Sentinel") {
      return invalid("REDIS_SENTINEL_PASSWORD", "REDIS_SENTINEL_PASSWORD is for sentinels, and no sentinels are given")
    }
    // REDIS_URL as written; the pair as the Sentinel URL it stands for.
    return Effect.succeed(fromPair === undefined ? url : Option.some(Redacted.make(fromPair)))
  })
)

/** REDIS_SENTINEL_PASSWORD: the sentinels' own password (their `requirepass`), if they have one. */
export const RedisSentinelPassword = Config.option(Config.Redacted("REDIS_SENTINEL_PASSWORD"))
