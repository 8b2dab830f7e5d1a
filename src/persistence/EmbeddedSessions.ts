/**
 * PGlite is one database session; the socket server shares it among the pool's connections.
 * Its own queue (pglite-socket 0.2.17) takes them one protocol message at a time, so the Parse,
 * Bind and Execute of one connection's statement could be split by another connection's
 * messages, and one connection's statements could run inside another's open transaction. Under
 * concurrency that failed statements ('portal "" does not exist') and could have bound one
 * statement's parameters to another's text, or let a rollback take another caller's write.
 *
 * This queue replaces it: a connection holds the session from its first message to the end of
 * its exchange (Sync, a simple Query or Terminate) and, while a transaction it opened is in
 * progress, until that transaction ends. Other connections wait their turn, in order.
 */
import type { PGlite } from "@electric-sql/pglite"
import type { PGLiteSocketServer } from "@electric-sql/pglite-socket"

/** Message types after which the session may pass on (when no transaction is open). */
const endsExchange = new Set([
  0x53, // Sync
  0x51, // Query (simple protocol)
  0x58, // Terminate
  0x00 // startup message (no type byte; its length starts with a zero byte)
])

export class EmbeddedSessions {
  private owner: number | null = null
  private readonly waiting: Array<{ readonly handlerId: number; readonly resume: () => void; readonly cancel: (error: Error) => void }> = []

  constructor(private readonly db: PGlite) {}

  async enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    await this.acquire(handlerId)
    let bytes = 0
    try {
      await this.db.runExclusive(() =>
        this.db.execProtocolRawStream(message, {
          onRawData: (data) => {
            bytes += data.length
            onData(data)
          }
        })
      )
    } catch (error) {
      // Not a database error (those are answers): the connection is done for.
      this.release(handlerId)
      throw error
    }
    if (endsExchange.has(message[0]!) && !this.db.isInTransaction()) this.release(handlerId)
    return bytes
  }

  getQueueLength(): number {
    return this.waiting.length
  }

  /** A connection went away: what it had waiting is dropped. */
  clearQueueForHandler(handlerId: number): void {
    for (let i = this.waiting.length - 1; i >= 0; i--) {
      if (this.waiting[i]!.handlerId === handlerId) this.waiting.splice(i, 1)[0]!.cancel(new Error("Handler disconnected"))
    }
  }

  /** A connection went away holding the session: its open transaction is rolled back, the session passes on. */
  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (this.owner !== handlerId) return
    if (this.db.isInTransaction()) await this.db.exec("ROLLBACK")
    this.release(handlerId)
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

/** Puts an EmbeddedSessions queue in place of the server's own; before any connection arrives. */
export const shareSessionsSafely = (server: PGLiteSocketServer, db: PGlite): void => {
  ;(server as unknown as { queryQueue: EmbeddedSessions }).queryQueue = new EmbeddedSessions(db)
}
