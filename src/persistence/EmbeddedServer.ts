/**
 * Serves the embedded PGlite to the service's connection pool over the Postgres wire protocol,
 * in place of pglite-socket's server, whose connection limit counted every open connection: a
 * local user holding idle connections that never authenticate took every slot, and the service
 * answered 503. Here:
 *
 * - the database listens on a Unix socket in a directory of mode 0700, so other local users
 *   cannot connect at all; on loopback TCP only where there are none (Windows);
 * - only connections that gave the password count against the limit (EmbeddedSessions refuses
 *   one beyond it at sign-in);
 * - a connection that has not given the password within the handshake deadline is closed, so
 *   one that never authenticates holds nothing for long.
 */
import { chmod, lstat, mkdir, mkdtemp, rm } from "node:fs/promises"
import net from "node:net"
import os from "node:os"
import * as Path from "node:path"

import type { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketHandler, type PGLiteSocketHandlerOptions } from "@electric-sql/pglite-socket"

import { EmbeddedSessions } from "./EmbeddedSessions.js"

export interface EmbeddedServerOptions {
  readonly db: PGlite
  readonly password: string
  /** Signed-in connections at most. */
  readonly maxConnections: number
  /** How long a connection may take from accept to giving the password. */
  readonly handshakeMillis: number
}

export interface EmbeddedServer {
  /** Where a pg client connects: host and port, or (pg's convention) the socket's directory and the port in its name. */
  readonly host: string
  readonly port: number
  /** For the log: the socket's path, or host:port. */
  readonly address: string
  readonly stop: () => Promise<void>
}

/** A deadline's timer this late means the event loop was stalled. */
const stallMillis = 100
/** How many times a stall may start a deadline again: stalls a client provokes buy it no more. */
const maxRestarts = 5
/**
 * What a connection may send before it gives the password: a startup message and a password
 * take well under 1 KB. pglite-socket buffers a message whole, whatever length it declares.
 */
const maxBytesBeforeSignIn = 16 * 1024

/**
 * Calls `expire` after `millis`, unless cancelled (by calling what it returns). PGlite runs on
 * this thread, so a long statement stalls the event loop, and a timer due meanwhile runs before
 * the connections' pending input is read: after a stall the deadline starts again, or the
 * pool's own connections, whose handshake waits for the loop too, would be closed.
 */
const deadline = (millis: number, expire: () => void): () => void => {
  let due = Date.now() + millis
  let restarts = 0
  const check = () => {
    if (Date.now() - due < stallMillis || restarts++ >= maxRestarts) return expire()
    due = Date.now() + millis
    timer = setTimeout(check, millis).unref()
  }
  let timer = setTimeout(check, millis).unref()
  return () => clearTimeout(timer)
}

/** Where to listen: a Unix socket in `directory`, or a TCP address. */
type Listen = { readonly directory: string } | { readonly host: string; readonly port: number }

/** Serves `options.db` at `listen`. */
export const serveEmbedded = async (listen: Listen, options: EmbeddedServerOptions): Promise<EmbeddedServer> => {
  /** Each connection yet to give the password: what cancels its deadline. */
  const deadlines = new Map<number, () => void>()
  const sockets = new Map<PGLiteSocketHandler, net.Socket>()
  const sessions = new EmbeddedSessions(options.db, options.password, {
    maxConnections: options.maxConnections,
    signedIn: (handlerId) => {
      deadlines.get(handlerId)?.()
      deadlines.delete(handlerId)
    }
  })
  let stopping = false
  const server = net.createServer((socket) => {
    if (stopping) return void socket.destroy()
    // EmbeddedSessions does the queue's job its own way (its class is not exported).
    const handler = new PGLiteSocketHandler({
      queryQueue: sessions as unknown as PGLiteSocketHandlerOptions["queryQueue"],
      closeOnDetach: true
    })
    const id = handler.handlerId
    sockets.set(handler, socket)
    deadlines.set(id, deadline(options.handshakeMillis, () => socket.destroy()))
    let received = 0
    const countUntilSignedIn = (chunk: Buffer) => {
      if (!deadlines.has(id)) return void socket.off("data", countUntilSignedIn)
      received += chunk.length
      if (received > maxBytesBeforeSignIn) socket.destroy()
    }
    socket.on("data", countUntilSignedIn)
    const forget = () => {
      deadlines.get(id)?.()
      deadlines.delete(id)
      sockets.delete(handler)
    }
    handler.addEventListener("close", forget)
    handler.addEventListener("error", forget)
    handler.attach(socket).catch(() => socket.destroy())
  })
  // Accept errors (out of file descriptors) are passing: the server goes on listening.
  const listening = new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.once("listening", () => {
      server.off("error", reject)
      server.on("error", () => {})
      resolve()
    })
  })
  if ("directory" in listen) server.listen(Path.join(listen.directory, socketName))
  else server.listen(listen.port, listen.host)
  await listening
  const port = "directory" in listen ? socketPort : (server.address() as net.AddressInfo).port
  const host = "directory" in listen ? listen.directory : listen.host
  return {
    host,
    port,
    address: "directory" in listen ? Path.join(host, socketName) : `${host}:${port}`,
    stop: async () => {
      stopping = true
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      const open = [...sockets]
      await Promise.all(open.map(([handler]) => handler.detach(true)))
      for (const [, socket] of open) socket.destroy()
      for (const cancel of deadlines.values()) cancel()
      await closed
    }
  }
}

/** The socket's name, `.s.PGSQL.<port>`, is how pg finds it in the directory given as host. */
const socketPort = 5432
const socketName = `.s.PGSQL.${socketPort}`
/** A Unix socket's path at most, in bytes (macOS: 104 with the closing NUL; Linux: 108). */
const maxSocketPath = 103

/** `dir`, created if need be, as a directory of this user's that only this user may enter. */
const privateDirectory = async (dir: string) => {
  await mkdir(dir, { recursive: true, mode: 0o700 })
  const stats = await lstat(dir)
  if (!stats.isDirectory() || stats.uid !== process.getuid?.()) {
    throw new Error(`${dir} is not a directory of this user's`)
  }
  await chmod(dir, 0o700)
}

/** Whether something accepts connections on the Unix socket at `path`. */
const answers = (path: string) =>
  new Promise<boolean>((resolve) => {
    const probe = net.connect(path)
    probe.once("connect", () => {
      probe.destroy()
      resolve(true)
    })
    probe.once("error", () => resolve(false))
  })

/**
 * Serves on a Unix socket in `DATA_DIR/socket`, a directory only this user may enter. Where that
 * cannot be (a path too long for a socket, a file system without sockets), in a private
 * directory under the system's temporary one instead, removed at stop.
 */
export const serveOnSocket = async (dataDir: string, options: EmbeddedServerOptions): Promise<EmbeddedServer> => {
  const dir = Path.resolve(dataDir, "socket")
  const path = Path.join(dir, socketName)
  if (Buffer.byteLength(path) <= maxSocketPath) {
    // A directory someone else made, or a socket that answers, stops the start: squatting, or
    // another process on the same DATA_DIR (two would corrupt the database).
    await privateDirectory(dir)
    if (await answers(path)) {
      throw new Error(`Another process serves the embedded database of ${dataDir} (${path} answers): stop it first`)
    }
    // Left behind by a process that did not stop cleanly.
    await rm(path, { force: true })
    try {
      return await serveEmbedded({ directory: dir }, options)
    } catch {
      // A file system without sockets: the temporary directory below.
    }
  }
  // mkdtemp creates the directory with mode 0700.
  const temporary = await mkdtemp(Path.join(os.tmpdir(), "status-page-db-"))
  const remove = () => rm(temporary, { recursive: true, force: true })
  const served = await serveEmbedded({ directory: temporary }, options).catch(async (error) => {
    await remove()
    throw error
  })
  return {
    ...served,
    stop: async () => {
      await served.stop()
      await remove()
    }
  }
}
