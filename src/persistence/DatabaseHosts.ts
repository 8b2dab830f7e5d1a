/**
 * DATABASE_URL naming several servers, as libpq reads it, so the service follows a primary that
 * moves: `postgres://user@h1:5432,h2:5432/db?target_session_attrs=read-write`. @effect/sql-pg
 * connects to one host and ignores `target_session_attrs`, so here:
 *
 * - `parseDatabaseUrl` reads the host list (in the authority, or `host=`/`port=` lists) and
 *   `target_session_attrs` strictly, and leaves a one-host URL with everything else (user,
 *   password, database, sslmode, options) for the library to read;
 * - `databaseConnection` gives the library a `stream` that chooses the server of each new
 *   connection: it tries the hosts in turn, the one that answered last first, and for
 *   `read-write` (`primary`) keeps the first whose session is not read-only (not in recovery),
 *   checked on a short connection of its own (`SHOW transaction_read_only`, as libpq does), then
 *   hands the library a socket to that server (TLS done here, named after that server);
 * - when a server turns read-only later (fenced with `default_transaction_read_only`, or a
 *   standby behind the same address), the first connection that hears it (a 25006 error, or the
 *   `ParameterStatus` PostgreSQL 14+ sends) has every connection of the process to that server
 *   dropped, and the next connection looks for the primary again.
 */
import * as Net from "node:net"
import { Duplex } from "node:stream"
import * as Tls from "node:tls"

import { PgConnection, PgProtocol } from "@effect/sql-pg"
import { Cause, Clock, Duration, Effect, Exit, Redacted, Result } from "effect"
import type { NonEmptyReadonlyArray } from "effect/Array"

/** libpq's `target_session_attrs` values the service can use: it writes, so never a standby. */
export const targetSessionAttrs = ["any", "read-write", "primary"] as const
export type TargetSessionAttrs = (typeof targetSessionAttrs)[number]

export interface DatabaseHost {
  /** A name or address, or a directory holding the server's Unix socket (starts with `/`). */
  readonly host: string
  readonly port: number
}

export interface DatabaseHosts {
  readonly hosts: NonEmptyReadonlyArray<DatabaseHost>
  readonly targetSessionAttrs: TargetSessionAttrs
  /** The URL with its first host only and none of the above: what @effect/sql-pg reads the rest from. */
  readonly url: string
  /** TLS as `sslmode` asks (as @effect/sql-pg reads it): never, always, or when the server offers it. */
  readonly ssl: boolean | "prefer"
}

const defaultPort = 5432
const emptyHost = "DATABASE_URL has an empty host in its host list"

/** `host[:port]` or `[v6 address][:port]`, percent-decoded. */
const parseHost = (text: string, fallbackPort: number | undefined): Result.Result<DatabaseHost, string> => {
  const match = /^\[([^\]]+)\](?::(.*))?$/.exec(text) ?? /^([^:[\]]*)(?::(.*))?$/.exec(text)
  if (match === null) return Result.fail(`DATABASE_URL has a host it cannot read: "${text}"`)
  let host: string
  try {
    host = decodeURIComponent(match[1]!)
  } catch {
    return Result.fail(`DATABASE_URL has a host with bad percent-encoding: "${text}"`)
  }
  if (host === "") return Result.fail(emptyHost)
  return Result.map(
    match[2] === undefined ? Result.succeed(fallbackPort ?? defaultPort) : parsePort(match[2], host),
    (port) => ({ host, port })
  )
}

const parsePort = (text: string, host: string): Result.Result<number, string> => {
  const port = Number(text)
  return /^\d+$/.test(text) && port >= 1 && port <= 65535
    ? Result.succeed(port)
    : Result.fail(`DATABASE_URL has an invalid port "${text}" for ${host} (1 to 65535)`)
}

const sslOf = (mode: string | null): Result.Result<boolean | "prefer", string> => {
  switch (mode) {
    case null:
    case "disable":
      return Result.succeed(false)
    case "prefer":
    case "allow":
      return Result.succeed("prefer")
    case "require":
    case "verify-ca":
    case "verify-full":
      return Result.succeed(true)
    default:
      return Result.fail(`DATABASE_URL's sslmode must be disable, allow, prefer, require, verify-ca or verify-full`)
  }
}

/**
 * Reads DATABASE_URL; the failure says what is wrong without repeating the URL (it may hold a
 * password). `postgres://u@h1:5432,h2:5433/db?target_session_attrs=read-write`,
 * `postgres://u@/db?host=h1,h2&port=5432` and a plain one-host URL are all read.
 */
export const parseDatabaseUrl = (text: string): Result.Result<DatabaseHosts, string> => {
  const parts = /^(postgres(?:ql)?:)\/\/([^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/i.exec(text.trim())
  if (parts === null) return Result.fail("DATABASE_URL must be a postgres:// or postgresql:// URL")
  const [, scheme, authority, path, query] = parts as unknown as [string, string, string, string, string | undefined]
  const at = authority.lastIndexOf("@")
  const userinfo = at === -1 ? "" : authority.slice(0, at + 1)
  const hostList = authority.slice(at + 1)
  const params = new URLSearchParams(query ?? "")

  for (const name of ["target_session_attrs", "host", "port", "sslmode"]) {
    if (params.getAll(name).length > 1) return Result.fail(`DATABASE_URL gives ${name} more than once`)
  }
  const attrs = params.get("target_session_attrs") ?? "any"
  if (!(targetSessionAttrs as ReadonlyArray<string>).includes(attrs)) {
    return Result.fail(
      `DATABASE_URL's target_session_attrs must be any, read-write or primary, not "${attrs}": the service writes, so a standby is no use to it`
    )
  }
  const ssl = sslOf(params.get("sslmode"))
  if (Result.isFailure(ssl)) return Result.fail(ssl.failure)

  // `host=` and `port=` replace what the authority says, as in libpq: one port for all, or one per host.
  const portParam = params.get("port")
  const hostParam = params.get("host")
  const ports = portParam === null ? [] : portParam.split(",")
  let hosts: Array<DatabaseHost> = []
  if (hostParam !== null || hostList !== "") {
    for (const item of (hostParam ?? hostList).split(",")) {
      // A `host=` item is a bare name or socket directory (decoded already); the authority's may carry a port.
      const host = hostParam === null
        ? parseHost(item, undefined)
        : item === ""
        ? Result.fail(emptyHost)
        : Result.succeed({ host: item, port: defaultPort })
      if (Result.isFailure(host)) return Result.fail(host.failure)
      hosts.push(host.success)
    }
  }
  if (hosts.length === 0) hosts = [{ host: "localhost", port: defaultPort }]
  if (ports.length > 0) {
    if (ports.length !== 1 && ports.length !== hosts.length) {
      return Result.fail(`DATABASE_URL's port lists ${ports.length} ports for ${hosts.length} hosts`)
    }
    const given = hosts
    hosts = []
    for (const [i, host] of given.entries()) {
      const port = parsePort(ports[ports.length === 1 ? 0 : i]!, host.host)
      if (Result.isFailure(port)) return Result.fail(port.failure)
      hosts.push({ ...host, port: port.success })
    }
  }

  params.delete("target_session_attrs")
  params.delete("host")
  params.delete("port")
  const first = hosts[0]!
  const firstHost = first.host.includes(":") ? `[${first.host}]` : encodeURIComponent(first.host)
  const rest = params.toString()
  const url = `${scheme.toLowerCase()}//${userinfo}${firstHost}:${first.port}${path}${rest === "" ? "" : `?${rest}`}`
  try {
    new URL(url)
  } catch {
    return Result.fail("DATABASE_URL is not a URL (a user name or password with /, ?, # or @ must be percent-encoded)")
  }
  return Result.succeed({
    hosts: hosts as unknown as NonEmptyReadonlyArray<DatabaseHost>,
    targetSessionAttrs: attrs as TargetSessionAttrs,
    url,
    ssl: ssl.success
  })
}

export const describeHost = ({ host, port }: DatabaseHost) =>
  host.startsWith("/") ? `${host}/.s.PGSQL.${port}` : `${host.includes(":") ? `[${host}]` : host}:${port}`

/** What the library's connection settings take from DATABASE_URL. */
export interface DatabaseConnection {
  readonly url: Redacted.Redacted<string>
  /** Set when the URL names several hosts or a `target_session_attrs`: chooses each connection's server. */
  readonly stream?: () => Duplex
  /** The chosen server's TLS is done beneath the library, which must not ask for it again. */
  readonly ssl?: false
}

const cancelRequestCode = 80877102
const readOnlyTransaction = "25006"

/** The CancelRequest packet: its length (16) and code. */
const isCancelRequest = (chunk: Buffer) =>
  chunk.length >= 8 && chunk.readInt32BE(0) === 16 && chunk.readInt32BE(4) === cancelRequestCode

/**
 * Watches what a server says on a session (messages: a type byte, then a length that counts
 * itself) for signs that it no longer takes writes: an ErrorResponse with SQLSTATE 25006 (only
 * for `read-write`), or a ParameterStatus of `in_hot_standby` or `default_transaction_read_only`
 * (only for `read-write`) turning `on`. Only the bodies of those two kinds are kept.
 */
export const readOnlyWatcher = (attrs: "read-write" | "primary") => {
  let pending: Buffer = Buffer.alloc(0)
  let skip = 0
  /** Set by a length no message can have: the library fails the connection; nothing to watch. */
  let lost = false
  const fields = (body: Buffer) => body.toString("utf8").split("\0")
  const readOnly = (type: number, body: Buffer) => {
    if (type === 0x53) {
      const [name, value] = fields(body)
      return value === "on" &&
        (name === "in_hot_standby" || (attrs === "read-write" && name === "default_transaction_read_only"))
    }
    // ErrorResponse: fields of a code byte and a string; `C` is the SQLSTATE.
    return attrs === "read-write" && fields(body).includes(`C${readOnlyTransaction}`)
  }
  /** Whether `chunk` said the server is read-only now. */
  return (chunk: Buffer): boolean => {
    let data = chunk
    let found = false
    while (data.length > 0 && !lost) {
      if (skip > 0) {
        const n = Math.min(skip, data.length)
        skip -= n
        data = data.subarray(n)
        continue
      }
      pending = pending.length === 0 ? data : Buffer.concat([pending, data])
      data = Buffer.alloc(0)
      while (pending.length >= 5) {
        const type = pending[0]!
        const total = 1 + pending.readInt32BE(1)
        if (total < 5) {
          lost = true
          break
        }
        const kept = (type === 0x45 || type === 0x53) && total <= 65_536
        if (pending.length < total) {
          if (kept) break
          skip = total - pending.length
          pending = Buffer.alloc(0)
          break
        }
        if (kept && readOnly(type, pending.subarray(5, total))) found = true
        pending = pending.subarray(total)
      }
      // What is kept must not pin the socket's (possibly large) chunk.
      if (pending.length > 0) pending = Buffer.from(pending)
    }
    return found
  }
}

/** A server's socket, and for a session what to watch it for and what to do when it turns read-only. */
interface Chosen {
  readonly socket: Duplex
  readonly watch?: ((chunk: Buffer) => boolean) | undefined
  /** Told of the library's stream once it goes to the server, so that all of the server's can be dropped. */
  readonly track?: ((stream: Duplex) => void) | undefined
  readonly onReadOnly?: (() => void) | undefined
}

type Run = <A, E>(effect: Effect.Effect<A, E>, onExit: (exit: Exit.Exit<A, E>) => void) => () => void

/**
 * The library's socket to a server chosen once the library starts writing: its first chunk
 * tells a session (probe the hosts) from a cancel request (the server last chosen). What the
 * library writes meanwhile waits. `watch` sees what the server sends, and a server that turns
 * read-only has its socket closed, which ends the library's connection.
 */
class ChosenServer extends Duplex {
  private socket: Duplex | undefined
  private waiting: Array<{ readonly chunk: Buffer; readonly callback: (error?: Error | null) => void }> = []
  private stop: (() => void) | undefined

  constructor(
    private readonly choose: (first: Buffer) => Effect.Effect<Chosen, Error>,
    private readonly run: Run
  ) {
    super()
  }

  private attach({ onReadOnly, socket, track, watch }: Chosen) {
    this.socket = socket
    track?.(this)
    socket.on("data", (chunk: Buffer) => {
      const readOnly = watch?.(chunk) === true
      if (!this.push(chunk)) socket.pause()
      if (readOnly) onReadOnly?.()
    })
    socket.on("end", () => this.push(null))
    socket.on("error", (error) => this.destroy(error))
    socket.on("close", () => this.destroy())
    for (const { callback, chunk } of this.waiting.splice(0)) socket.write(chunk, callback)
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void) {
    if (this.socket !== undefined) {
      this.socket.write(chunk, callback)
      return
    }
    this.waiting.push({ chunk, callback })
    if (this.stop !== undefined) return
    this.stop = this.run(this.choose(chunk), (exit) => {
      if (this.destroyed) {
        if (Exit.isSuccess(exit)) exit.value.socket.destroy()
        return
      }
      if (Exit.isSuccess(exit)) this.attach(exit.value)
      else this.destroy(new Error(failureMessage(exit.cause)))
    })
  }

  override _read() {
    this.socket?.resume()
  }

  override _final(callback: (error?: Error | null) => void) {
    if (this.socket === undefined) callback()
    else this.socket.end(callback)
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void) {
    this.stop?.()
    this.socket?.destroy()
    for (const { callback: written } of this.waiting.splice(0)) written(error ?? new Error("The connection closed"))
    callback(error)
  }
}

const failureMessage = (cause: Cause.Cause<Error>) => {
  const error = Cause.hasInterruptsOnly(cause) ? undefined : Cause.squash(cause)
  return error instanceof Error ? error.message : "Choosing a PostgreSQL server was interrupted"
}

/** Why a host was passed over, in a few words. */
const reasonOf = (cause: unknown): string => {
  const error = (cause as { reason?: { cause?: unknown } })?.reason?.cause ?? cause
  const code = (error as { code?: unknown })?.code
  const message = error instanceof Error ? error.message : String(error)
  return typeof code === "string" && !message.includes(code) ? `${message} (${code})` : message
}

/**
 * A socket to `host`, TLS negotiated as PostgreSQL does (an SSLRequest first) when `ssl` asks,
 * within `timeoutMs`.
 */
const openSocket = (
  target: DatabaseHost,
  ssl: boolean | "prefer",
  timeoutMs: number
): Effect.Effect<Duplex, Error> =>
  Effect.callback<Duplex, Error>((resume) => {
    let done = false
    let socket: Net.Socket | Tls.TLSSocket = target.host.startsWith("/")
      ? Net.connect({ path: `${target.host}/.s.PGSQL.${target.port}` })
      : Net.connect({ host: target.host, port: target.port, noDelay: true })
    const finish = (outcome: Error | Duplex) => {
      if (done) return
      done = true
      clearTimeout(timer)
      socket.off("error", fail)
      socket.off("close", closed)
      if (outcome instanceof Error) {
        socket.destroy()
        resume(Effect.fail(outcome))
      } else {
        resume(Effect.succeed(outcome))
      }
    }
    const fail = (error: Error) => finish(error)
    const closed = () => finish(new Error("the server closed the connection"))
    const timer = setTimeout(() => finish(new Error(`no connection within ${timeoutMs} ms`)), timeoutMs)
    socket.on("error", fail)
    socket.on("close", closed)
    socket.once("connect", () => {
      if (ssl === false) return finish(socket)
      socket.once("data", (answer: Buffer) => {
        if (answer.length === 1 && answer[0] === 0x4e && ssl === "prefer") return finish(socket)
        if (answer.length !== 1 || answer[0] !== 0x53) return finish(new Error("the server refused TLS"))
        const raw = socket
        raw.off("error", fail)
        raw.off("close", closed)
        socket = Tls.connect({
          socket: raw as Net.Socket,
          host: target.host,
          servername: Net.isIP(target.host) === 0 ? target.host : undefined
        })
        socket.on("error", fail)
        socket.on("close", closed)
        socket.once("secureConnect", () => finish(socket))
      })
      socket.write(PgProtocol.encodeSslRequest())
    })
    return Effect.sync(() => finish(new Error("interrupted")))
  })

/**
 * Whether the server at `host` takes writes (`read-write`: the session is not read-only) or is
 * not a standby (`primary`), asked on a connection of its own with the URL's credentials.
 */
const usable = (
  url: Redacted.Redacted<string>,
  target: DatabaseHost,
  attrs: "read-write" | "primary",
  timeoutMs: number
) =>
  Effect.scoped(
    Effect.gen(function*() {
      const connection = yield* PgConnection.make({
        url,
        host: target.host,
        port: target.port,
        connectTimeout: Duration.millis(timeoutMs)
      })
      if (attrs === "primary") {
        const { rows } = yield* connection.query("select pg_is_in_recovery() as standby", [], false)
        return rows[0]?.standby === true ? "is a standby" : undefined
      }
      const { rows } = yield* connection.query("show transaction_read_only", [], false)
      return rows[0]?.transaction_read_only === "off"
        ? undefined
        : "is read-only (a standby, or default_transaction_read_only)"
    })
  )

/**
 * For each DATABASE_URL, the index of the host the last connection went to: tried first, so a
 * dead host in front costs nothing each time, also to a LISTEN connection opened anew; and
 * logged when it changes.
 */
const lastChosen = new Map<string, number>()

/** For each DATABASE_URL, the library's open sessions by host: all of a server's go when it turns read-only. */
const openSessions = new Map<string, ReadonlyArray<Set<Duplex>>>()

/**
 * The library's connection settings for DATABASE_URL. A plain one-host URL is the library's to
 * read, as before; otherwise each new connection goes through a server chosen as the module's
 * comment says, within `connectTimeout` in all (each host gets its share).
 */
export const databaseConnection = Effect.fnUntraced(function*(
  url: Redacted.Redacted<string>,
  connectTimeout: Duration.Input = Duration.seconds(5)
) {
  const parsed = parseDatabaseUrl(Redacted.value(url))
  // Unreadable: the library says why at connect (Database.ts refuses such a URL at start).
  if (Result.isFailure(parsed)) return { url } satisfies DatabaseConnection
  const { hosts, ssl, targetSessionAttrs: attrs } = parsed.success
  if (hosts.length === 1 && attrs === "any") return { url } satisfies DatabaseConnection
  const libraryUrl = Redacted.make(parsed.success.url)
  const context = yield* Effect.context<never>()
  const runCallback = Effect.runCallbackWith(context)
  // The timeouts run on the process's clock, as the pool's do (a test's TestClock moves the service's time only).
  const run: Run = (effect, onExit) =>
    runCallback(Effect.provideService(effect, Clock.Clock, Clock.Clock.defaultValue()), { onExit })
  const perHostMs = Math.max(
    500,
    Math.floor(Duration.toMillis(Duration.fromInputUnsafe(connectTimeout)) / hosts.length)
  )
  // Shared by every connection to this URL (the pool's, each LISTEN's, the locks'), read afresh each time.
  const key = Redacted.value(url)
  const current = () => lastChosen.get(key) ?? 0
  const sessions = openSessions.get(key) ?? hosts.map(() => new Set<Duplex>())
  openSessions.set(key, sessions)
  /**
   * Drops every session to host `i`: its server no longer takes writes, and what the others read
   * there may be stale. After the library has read what said so: the statement fails with it.
   */
  const dropSessions = (i: number) => {
    if (sessions[i]!.size === 0) return
    run(
      Effect.logWarning(
        `PostgreSQL: ${describeHost(hosts[i]!)} no longer takes writes; dropping its ${sessions[i]!.size} connections`
      ),
      () => {}
    )
    const dropped = [...sessions[i]!]
    sessions[i]!.clear()
    setImmediate(() => {
      for (const stream of dropped) stream.destroy()
    })
  }

  const candidates = () => [current(), ...hosts.map((_, i) => i).filter((i) => i !== current())]

  const session = Effect.gen(function*() {
    const passedOver: Array<string> = []
    for (const i of candidates()) {
      const target = hosts[i]!
      const outcome = yield* Effect.gen(function*() {
        if (attrs !== "any") {
          const refusal = yield* usable(libraryUrl, target, attrs, perHostMs)
          if (refusal !== undefined) return yield* Effect.fail(new Error(refusal))
        }
        return yield* openSocket(target, ssl, perHostMs)
      }).pipe(Effect.result)
      if (Result.isFailure(outcome)) {
        passedOver.push(`${describeHost(target)} ${reasonOf(outcome.failure)}`)
        continue
      }
      // Said when the URL's connections go somewhere else (and at the first).
      const previous = lastChosen.get(key)
      lastChosen.set(key, i)
      if (previous !== i) {
        yield* Effect.logInfo(
          `PostgreSQL: connecting to ${describeHost(target)} (target_session_attrs=${attrs})${
            passedOver.length > 0 ? `; passed over ${passedOver.join("; ")}` : ""
          }`
        )
      }
      return {
        socket: outcome.success,
        watch: attrs === "any" ? undefined : readOnlyWatcher(attrs),
        track: (stream) => {
          sessions[i]!.add(stream)
          stream.once("close", () => sessions[i]!.delete(stream))
        },
        onReadOnly: () => dropSessions(i)
      } satisfies Chosen
    }
    return yield* Effect.fail(
      new Error(`No PostgreSQL server to use (target_session_attrs=${attrs}): ${passedOver.join("; ")}`)
    )
  })
  // A cancel request goes to the server the last session went to, without asking it anything.
  const cancel = Effect.suspend(() =>
    Effect.map(openSocket(hosts[current()]!, ssl, perHostMs), (socket): Chosen => ({ socket }))
  )

  return {
    url: libraryUrl,
    ssl: false,
    stream: () => new ChosenServer((first) => isCancelRequest(first) ? cancel : session, run)
  } satisfies DatabaseConnection
})
