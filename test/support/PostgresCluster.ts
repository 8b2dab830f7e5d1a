/**
 * PostgreSQL clusters of a test's own, for failover: a primary made with `initdb`, standbys
 * cloned from it with `pg_basebackup -R` and streaming from it, on free loopback ports, each in a
 * directory under one temporary directory that `remove` deletes. A primary can be SIGKILLed
 * (the postmaster and every backend at once, as a machine that dies) and a standby promoted.
 * Under root, the server refuses to run: the commands then run as the `postgres` user, which
 * owns the directories. The machine's own server (5432) is never touched.
 */
import { execFile } from "node:child_process"
import { chown, mkdtemp, readdir, readFile, rm } from "node:fs/promises"
import * as Net from "node:net"
import { tmpdir } from "node:os"
import * as Path from "node:path"

import { freePort } from "./ChildProcess.js"

export const postgresBin = process.env.POSTGRES_BIN ?? "/usr/lib/postgresql/15/bin"

/** The user the clusters run as: the current one, or `postgres` under root. */
const asRoot = process.getuid?.() === 0

const execute = (command: string, args: ReadonlyArray<string>) =>
  new Promise<{ error: Error | null; stdout: string; stderr: string }>((resolve) => {
    const [file, argv] = asRoot
      ? ["runuser", ["-u", "postgres", "--", Path.join(postgresBin, command), ...args]]
      : [Path.join(postgresBin, command), [...args]]
    execFile(
      file,
      argv,
      { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ error, stdout, stderr })
    )
  })

const run = async (command: string, args: ReadonlyArray<string>) => {
  const { error, stderr, stdout } = await execute(command, args)
  if (error) throw new Error(`${command} ${args.join(" ")} failed: ${stderr || error.message}`)
  return stdout
}

/** An LSN (`16/B374D848`) as a number of bytes. */
const lsnBytes = (lsn: string) => {
  const [high, low] = lsn.split("/")
  return Number.parseInt(high!, 16) * 2 ** 32 + Number.parseInt(low!, 16)
}

/**
 * What a dead primary wrote after the point where its promoted standby's new timeline begins
 * (the last line of the standby's newest `.history` file): the transactions it committed that
 * the new primary never had, read from its WAL with `pg_waldump`, and how many bytes of WAL.
 */
export const walLostInFailover = async (old: Cluster, promoted: Cluster) => {
  const histories = (await readdir(Path.join(promoted.dir, "pg_wal"))).filter((name) => name.endsWith(".history"))
  const newest = histories.sort().at(-1)
  if (newest === undefined) throw new Error(`${promoted.name} has no timeline history: was it promoted?`)
  const lines = (await readFile(Path.join(promoted.dir, "pg_wal", newest), "utf8")).trim().split("\n")
  const [timeline, switchLsn] = lines.at(-1)!.split(/\s+/) as [string, string]
  // pg_waldump ends with an error at the end of the WAL it finds: what it printed is what counts.
  const { stdout } = await execute("pg_waldump", ["-p", Path.join(old.dir, "pg_wal"), "-t", timeline, "-s", switchLsn])
  const records = stdout.split("\n").filter((line) => line.startsWith("rmgr:"))
  // The last record's start and total length: `len (rec/tot):     34/    34, … lsn: 0/03000060`.
  const last = /len \(rec\/tot\):\s*\d+\/\s*(\d+),.*lsn: ([0-9A-F]+\/[0-9A-F]+)/.exec(records.at(-1) ?? "")
  return {
    switchLsn,
    commits: records.filter((line) => /desc: COMMIT\b/.test(line)).length,
    bytes: last === null ? 0 : lsnBytes(last[2]!) + Number(last[1]) - lsnBytes(switchLsn)
  }
}

export interface Cluster {
  readonly name: string
  readonly dir: string
  readonly port: number
  /** `postgres://postgres@127.0.0.1:<port>/<database>`. */
  readonly url: (database?: string) => string
  readonly start: () => Promise<void>
  /** SIGKILL to the postmaster and all its processes at once; resolves once they are gone. */
  readonly kill: () => Promise<void>
  /** `pg_ctl promote`, waiting until the server takes writes. */
  readonly promote: () => Promise<void>
  /** `pg_ctl stop -m immediate`, if it runs. */
  readonly stop: () => Promise<void>
}

export interface Clusters {
  /** A new primary. `settings` are given on the server's command line, so a clone does not inherit them. */
  readonly primary: (name: string, settings?: Record<string, string>) => Promise<Cluster>
  /**
   * A standby of `upstream`, cloned from it; it streams from `via` (a port in front of the
   * upstream's, such as a `delayedLink`'s) when given.
   */
  readonly standby: (
    name: string,
    upstream: Cluster,
    options?: { readonly via?: number; readonly settings?: Record<string, string> }
  ) => Promise<Cluster>
  /** Stops every cluster and deletes their directories. */
  readonly remove: () => Promise<void>
}

/** Settings for a small, fast test server: loopback only, no fsync (a SIGKILL still keeps what the kernel has). */
const baseSettings = (dir: string, port: number): Record<string, string> => ({
  port: String(port),
  listen_addresses: "127.0.0.1",
  unix_socket_directories: dir,
  fsync: "off",
  shared_buffers: "32MB",
  max_connections: "100",
  wal_keep_size: "256MB"
})

const optionsOf = (settings: Record<string, string>) =>
  Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`).join(" ")

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Whether `pid` still runs: gone, or a zombie its parent has yet to reap, is dead. */
const alive = async (pid: number) => {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "")
  return stat !== "" && stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z"
}

/** The processes whose parent is `pid`, read from /proc. */
const childrenOf = async (pid: number) => {
  const children: Array<number> = []
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "")
    // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ")".
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
    if (ppid === pid) children.push(Number(entry))
  }
  return children
}

export const makeClusters = async (): Promise<Clusters> => {
  const root = await mkdtemp(Path.join(tmpdir(), "sps-pg-"))
  const [uid, gid] = asRoot ? await postgresIds() : [undefined, undefined]
  if (uid !== undefined && gid !== undefined) await chown(root, uid, gid)
  const made: Array<Cluster> = []

  const cluster = (name: string, dir: string, port: number, settings: Record<string, string>): Cluster => {
    const pid = async () => Number((await readFile(Path.join(dir, "postmaster.pid"), "utf8")).split("\n")[0])
    const self: Cluster = {
      name,
      dir,
      port,
      url: (database = "postgres") => `postgres://postgres@127.0.0.1:${port}/${database}`,
      start: () =>
        run("pg_ctl", [
          "start",
          "-w",
          "-D",
          dir,
          "-l",
          Path.join(root, `${name}.log`),
          "-o",
          optionsOf({ ...baseSettings(dir, port), ...settings })
        ]).then(() => undefined),
      kill: async () => {
        const postmaster = await pid()
        // Stopped first, so it forks nothing while its children are read.
        process.kill(postmaster, "SIGSTOP")
        const all = [postmaster, ...await childrenOf(postmaster)]
        for (const process_ of all) {
          try {
            process.kill(process_, "SIGKILL")
          } catch {
            // already gone
          }
        }
        while ((await Promise.all(all.map(alive))).some(Boolean)) await sleep(10)
      },
      promote: () => run("pg_ctl", ["promote", "-w", "-D", dir]).then(() => undefined),
      stop: () => run("pg_ctl", ["stop", "-m", "immediate", "-D", dir]).then(() => undefined, () => undefined)
    }
    made.push(self)
    return self
  }

  return {
    primary: async (name, settings = {}) => {
      const dir = Path.join(root, name)
      await run("initdb", ["-D", dir, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"])
      const primary = cluster(name, dir, await freePort(), settings)
      await primary.start()
      return primary
    },
    standby: async (name, upstream, options = {}) => {
      const dir = Path.join(root, name)
      await run("pg_basebackup", [
        "-h",
        "127.0.0.1",
        "-p",
        String(upstream.port),
        "-U",
        "postgres",
        "-D",
        dir,
        "-R",
        "-X",
        "stream",
        "-c",
        "fast",
        "--no-sync"
      ])
      const standby = cluster(name, dir, await freePort(), {
        primary_conninfo: `'host=127.0.0.1 port=${
          options.via ?? upstream.port
        } user=postgres application_name=${name}'`,
        ...options.settings
      })
      await standby.start()
      return standby
    },
    remove: async () => {
      for (const cluster of made.reverse()) await cluster.stop()
      await rm(root, { recursive: true, force: true })
    }
  }
}

const postgresIds = async (): Promise<[number, number]> => {
  const line = (await readFile("/etc/passwd", "utf8")).split("\n").find((entry) => entry.startsWith("postgres:"))
  if (line === undefined) throw new Error("Running as root, the clusters need a `postgres` user")
  const [, , uid, gid] = line.split(":")
  return [Number(uid), Number(gid)]
}

/**
 * A TCP link to `targetPort` that holds every byte `delayMs` each way, as a link to a standby in
 * another region. `cut` closes both ends and drops what is on the way, as when the machine at one
 * end dies: what the primary sent in its last `delayMs` never arrives.
 */
export const delayedLink = async (targetPort: number, delayMs: number) => {
  const sockets = new Set<Net.Socket>()
  const timers = new Set<NodeJS.Timeout>()
  let open = true
  const forward = (from: Net.Socket, to: Net.Socket) =>
    from.on("data", (chunk) => {
      const timer = setTimeout(() => {
        timers.delete(timer)
        if (!to.destroyed) to.write(chunk)
      }, delayMs)
      timers.add(timer)
    })
  const server = Net.createServer((client) => {
    if (!open) return client.destroy()
    const upstream = Net.connect(targetPort, "127.0.0.1")
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.setNoDelay(true)
      socket.on("close", () => {
        sockets.delete(socket)
        client.destroy()
        upstream.destroy()
      })
      socket.on("error", () => socket.destroy())
    }
    forward(client, upstream)
    forward(upstream, client)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const cut = () => {
    open = false
    for (const timer of timers) clearTimeout(timer)
    timers.clear()
    for (const socket of sockets) socket.destroy()
  }
  return {
    port: (server.address() as Net.AddressInfo).port,
    cut,
    close: () =>
      new Promise<void>((resolve) => {
        cut()
        server.close(() => resolve())
      })
  }
}
