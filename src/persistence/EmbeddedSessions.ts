/**
 * PGlite is one database session; the socket server shares it among the pool's connections.
 * Its own queue (pglite-socket 0.2.17) takes them one protocol message at a time, so the Parse,
 * Bind and Execute of one connection's statement could be split by another connection's
 * messages, and one connection's statements could run inside another's open transaction. Under
 * concurrency that failed statements ('portal "" does not exist') and could have bound one
 * statement's parameters to another's text, or let a rollback take another caller's write.
 *
 * This queue replaces it: a connection's messages run in the order they arrived, and a
 * connection holds the session from its first message to the end of its exchange (Sync, a
 * simple Query or Terminate) and, while a transaction it opened is in progress, until that
 * transaction ends. Other connections wait their turn, in order. (COPY and cursors, which the
 * service does not use, would hold or release the session early.)
 *
 * It also asks for a password, which PGlite does not: a connection without it would be an
 * administrator of the service's data, and where the database is served on loopback TCP
 * (Windows; EmbeddedServer) every local user can reach it. A connection's startup message is
 * held back until it sends the password (in clear: it never leaves the machine, and only root
 * could read it there, who can read the process anyway); a wrong password, or anything else, is
 * answered with an error and the connection closed. Only then does the startup reach PGlite, so
 * an unauthenticated connection never holds the session. Only signed-in connections count
 * against the limit: one beyond it is refused at sign-in, as PostgreSQL does.
 */
import { createHash, timingSafeEqual } from "node:crypto"

import type { PGlite } from "@electric-sql/pglite"

/** Message types after which the session may pass on (when no transaction is open). */
const endsExchange = new Set([
  0x53, // Sync
  0x51, // Query (simple protocol)
  0x58, // Terminate
  0x00 // startup message (no type byte; its length starts with a zero byte)
])

/** Sync: ends an extended-protocol exchange a connection left unfinished. */
const syncMessage = new Uint8Array([0x53, 0, 0, 0, 4])

/** A simple Query message (inside runExclusive, `db.exec` would wait for the lock it is under). */
const queryMessage = (text: string): Uint8Array => {
  const body = new TextEncoder().encode(`${text}\0`)
  const message = new Uint8Array(5 + body.length)
  message[0] = 0x51
  new DataView(message.buffer).setInt32(1, 4 + body.length)
  message.set(body, 5)
  return message
}
const rollbackMessage = queryMessage("ROLLBACK")

/** A startup message: its length, then protocol version 3.0 (SSL and cancel requests never get here). */
const isStartup = (message: Uint8Array) =>
  message.length >= 8 && new DataView(message.buffer, message.byteOffset).getInt32(4) === 196608

/** AuthenticationCleartextPassword. */
const passwordRequest = new Uint8Array([0x52, 0, 0, 0, 8, 0, 0, 0, 3])

/** A fatal ErrorResponse, after which the connection is closed. */
const fatalError = (code: string, text: string): Uint8Array => {
  const fields = new TextEncoder().encode(`SFATAL\0VFATAL\0C${code}\0M${text}\0\0`)
  const message = new Uint8Array(5 + fields.length)
  message[0] = 0x45
  new DataView(message.buffer).setInt32(1, 4 + fields.length)
  message.set(fields, 5)
  return message
}

const digest = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest()

/** A PasswordMessage carrying `expected` (compared in constant time). */
const isPassword = (message: Uint8Array, expected: Buffer) =>
  message[0] === 0x70 && message.length >= 6 &&
  timingSafeEqual(digest(message.subarray(5, message.length - 1)), expected)

/** Who is let in beyond the password. */
export interface Admission {
  /** Signed-in connections at most. */
  readonly maxConnections: number
  /** A connection has given the password and been let in. */
  readonly signedIn: (handlerId: number) => void
}

export class EmbeddedSessions {
  private owner: number | null = null
  private readonly waiting: Array<
    { readonly handlerId: number; readonly resume: () => void; readonly cancel: (error: Error) => void }
  > = []
  /**
   * Each connection's messages, in the order they arrived: the socket handler reads each chunk
   * in a task of its own, so one connection can have several messages on their way at once.
   */
  private readonly tails = new Map<number, Promise<unknown>>()
  /**
   * Connections that failed or went away; their messages still on their way are refused. True
   * once the clean-up is over: the last of those messages forgets the connection (ids are never
   * reused, but a long-lived pool would otherwise collect them).
   */
  private readonly gone = new Map<number, boolean>()

  /** Connections that gave the password. */
  private readonly signedIn = new Set<number>()
  /** Startup messages held back until their connection gives the password. */
  private readonly startups = new Map<number, Uint8Array>()
  private readonly password: Buffer

  constructor(private readonly db: PGlite, password: string, private readonly admission: Admission) {
    this.password = digest(new TextEncoder().encode(password))
  }

  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    const previous = this.tails.get(handlerId) ?? Promise.resolve()
    const next = previous.then(() => this.run(handlerId, message, onData), () => this.run(handlerId, message, onData))
    this.tails.set(handlerId, next)
    const forget = () => {
      if (this.tails.get(handlerId) !== next) return
      this.tails.delete(handlerId)
      if (this.gone.get(handlerId) === true) this.gone.delete(handlerId)
    }
    next.then(forget, forget)
    return next
  }

  getQueueLength(): number {
    return this.waiting.length
  }

  /** A connection went away: what it had waiting is dropped. */
  clearQueueForHandler(handlerId: number): void {
    this.gone.set(handlerId, false)
    for (let i = this.waiting.length - 1; i >= 0; i--) {
      if (this.waiting[i]!.handlerId === handlerId) {
        this.waiting.splice(i, 1)[0]!.cancel(new Error("Handler disconnected"))
      }
    }
  }

  /**
   * A connection went away (or failed) holding the session: its unfinished exchange is ended
   * and its open transaction rolled back before the session passes on. Once a connection is
   * gone it never becomes the owner again (run refuses it before acquiring).
   */
  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    try {
      if (this.owner === handlerId) {
        await this.db.runExclusive(async () => {
          await this.db.execProtocolRaw(syncMessage)
          if (this.db.isInTransaction()) await this.db.execProtocolRaw(rollbackMessage)
        })
      }
    } catch {
      // The database is closing (or broken): there is nothing left to end, and the socket
      // handler does not await this, so a rejection would only go unhandled.
    } finally {
      this.release(handlerId)
      this.signedIn.delete(handlerId)
      this.startups.delete(handlerId)
      if (this.tails.has(handlerId)) this.gone.set(handlerId, true)
      else this.gone.delete(handlerId)
    }
  }

  private async run(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    if (this.gone.has(handlerId)) throw new Error("Handler disconnected")
    if (!this.signedIn.has(handlerId)) return this.authenticate(handlerId, message, onData)
    await this.acquire(handlerId)
    let bytes = 0
    try {
      await this.db.runExclusive(() => {
        // Gone while this waited for the lock (the clean-up may have run first): not run.
        if (this.gone.has(handlerId)) throw new Error("Handler disconnected")
        return this.db.execProtocolRawStream(message, {
          onRawData: (data) => {
            bytes += data.length
            onData(data)
          }
        })
      })
    } catch (error) {
      // Not a database error (those are answers): the socket handler detaches the connection,
      // and clearTransactionIfNeeded cleans up and passes the session on. Its messages still
      // on their way must not run meanwhile.
      if (!this.gone.has(handlerId)) this.gone.set(handlerId, false)
      throw error
    }
    if (endsExchange.has(message[0]!) && !this.db.isInTransaction()) this.release(handlerId)
    return bytes
  }

  /** The exchange before the session: startup, password request, password; anything else closes the connection. */
  private authenticate(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    const startup = this.startups.get(handlerId)
    if (startup === undefined && isStartup(message)) {
      this.startups.set(handlerId, message.slice())
      onData(passwordRequest)
      return Promise.resolve(passwordRequest.length)
    }
    const authenticated = startup !== undefined && isPassword(message, this.password)
    if (authenticated && this.signedIn.size < this.admission.maxConnections) {
      this.startups.delete(handlerId)
      this.signedIn.add(handlerId)
      this.admission.signedIn(handlerId)
      // PGlite answers the startup (AuthenticationOk, parameters, ReadyForQuery) as the password's answer.
      return this.run(handlerId, startup, onData)
    }
    const refusal = authenticated
      ? fatalError("53300", "sorry, too many clients already")
      : startup !== undefined && message[0] === 0x70
      ? fatalError("28P01", "password authentication failed")
      : fatalError("28000", "a password is required")
    onData(refusal)
    // Failing closes the connection (the socket handler detaches it) and refuses what it sends next.
    this.gone.set(handlerId, false)
    return Promise.reject(new Error(authenticated ? "too many connections" : "password authentication failed"))
  }

  private acquire(handlerId: number): Promise<void> {
    if (this.owner === null) this.owner = handlerId
    if (this.owner === handlerId) return Promise.resolve()
    return new Promise((resume, cancel) => this.waiting.push({ handlerId, resume, cancel }))
  }

  private release(handlerId: number): void {
    if (this.owner !== handlerId) return
    const next = this.waiting.shift()
    this.owner = next?.handlerId ?? null
    next?.resume()
  }
}
