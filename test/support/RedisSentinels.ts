/**
 * A Redis Sentinel group of the test's own on loopback: a master, a replica and three sentinels
 * (`redis-server --sentinel`, what Debian's `redis-sentinel` runs), each on a free port with a
 * directory of its own under one temporary directory. Quorum 2, the master taken as down after
 * `downAfterMs` without an answer. ACL users are not replicated: both data nodes load the same
 * users from ACL files of their own; the default user keeps every right, for the sentinels,
 * the replication and the test's own checks. `stop` kills every process and deletes the directory.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as Path from "node:path"

import { Redis } from "ioredis"

import { type RedisProcess, spawnRedisServer } from "./RedisServer.js"

export interface SentinelGroupOptions {
  /** The master's name in the sentinels' configuration. */
  readonly name?: string
  /** ACL rules per user (after `user <name>`), on both data nodes. */
  readonly aclUsers?: Readonly<Record<string, ReadonlyArray<string>>>
  /** `sentinel down-after-milliseconds`: how long the master may be silent before a sentinel thinks it down. */
  readonly downAfterMs?: number
  /** `sentinel failover-timeout`: how long one failover attempt may take before another is tried. */
  readonly failoverTimeoutMs?: number
}

export interface SentinelGroup {
  readonly name: string
  /** The data nodes' ports: the first master, its replica. */
  readonly dataPorts: ReadonlyArray<number>
  readonly sentinelPorts: ReadonlyArray<number>
  /** `redis+sentinel://[user:password@]127.0.0.1:<port>,…/<name>`, the three sentinels. */
  readonly url: (user?: string, password?: string) => string
  /** The master's port as a sentinel answers `SENTINEL get-master-addr-by-name`. */
  readonly masterPort: () => Promise<number>
  /** A connection as the default user to the node on `port`, closed by `stop`. */
  readonly admin: (port: number) => Redis
  /** SIGKILLs the data node on `port`; resolves once it is gone, with when the signal was sent. */
  readonly kill: (port: number) => Promise<number>
  /** Resolves once every sentinel names a master other than `port`: the failover is done. */
  readonly failedOverFrom: (port: number, timeoutMs: number) => Promise<number>
  readonly stop: () => Promise<void>
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

const until = async (what: string, condition: () => Promise<boolean>, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  while (!(await condition().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await sleep(100)
  }
}

/** A field of `SENTINEL MASTER`'s flat list of names and values. */
const field = (reply: ReadonlyArray<string>, name: string) => reply[reply.indexOf(name) + 1]

export const startSentinelGroup = async (options: SentinelGroupOptions = {}): Promise<SentinelGroup> => {
  const name = options.name ?? "status"
  const downAfterMs = options.downAfterMs ?? 1_000
  const failoverTimeoutMs = options.failoverTimeoutMs ?? 5_000
  const dir = mkdtempSync(Path.join(tmpdir(), "sps-sentinel-"))
  const processes = new Map<number, RedisProcess>()
  const admins: Array<Redis> = []
  const stop = async () => {
    for (const admin of admins) admin.disconnect()
    await Promise.all([...processes.values()].map(async ({ child, exited }) => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
      await exited
    }))
    rmSync(dir, { recursive: true, force: true })
  }
  const admin = (port: number) => {
    const redis = new Redis({ host: "127.0.0.1", port, lazyConnect: true, maxRetriesPerRequest: 1 })
    redis.on("error", () => undefined)
    admins.push(redis)
    return redis
  }
  try {
    const aclUsers = Object.entries(options.aclUsers ?? {})
    const dataNode = async (role: string, replicaOf?: number) => {
      const nodeDir = Path.join(dir, role)
      mkdirSync(nodeDir)
      const aclFile = Path.join(nodeDir, "users.acl")
      writeFileSync(
        aclFile,
        `${
          ["user default on nopass ~* &* +@all", ...aclUsers.map(([user, rules]) => `user ${user} ${rules.join(" ")}`)]
            .join("\n")
        }\n`,
        { mode: 0o600 }
      )
      const node = await spawnRedisServer((port) => [
        ...["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        ...["--dir", nodeDir, "--aclfile", aclFile],
        ...(replicaOf === undefined ? [] : ["--replicaof", "127.0.0.1", String(replicaOf)])
      ])
      processes.set(node.port, node)
      return node.port
    }
    const masterPort = await dataNode("master")
    const replicaPort = await dataNode("replica", masterPort)
    const replica = admin(replicaPort)
    await until(
      "the replica in sync",
      async () => (await replica.info("replication")).includes("master_link_status:up"),
      20_000
    )

    const sentinelPorts: Array<number> = []
    for (let n = 1; n <= 3; n++) {
      const sentinelDir = Path.join(dir, `sentinel-${n}`)
      mkdirSync(sentinelDir)
      const sentinel = await spawnRedisServer((port) => {
        // A sentinel rewrites its configuration file: one per attempt, the port given on the command line.
        const conf = Path.join(sentinelDir, `sentinel-${port}.conf`)
        writeFileSync(
          conf,
          [
            "bind 127.0.0.1",
            `dir ${sentinelDir}`,
            `sentinel monitor ${name} 127.0.0.1 ${masterPort} 2`,
            `sentinel down-after-milliseconds ${name} ${downAfterMs}`,
            `sentinel failover-timeout ${name} ${failoverTimeoutMs}`,
            `sentinel parallel-syncs ${name} 1`
          ].join("\n") + "\n"
        )
        return [conf, "--sentinel", "--port", String(port)]
      })
      processes.set(sentinel.port, sentinel)
      sentinelPorts.push(sentinel.port)
    }
    // Ready for a failover once each sentinel knows the replica and the two other sentinels
    // (they find each other through the master's hello channel, every 2 s).
    const sentinels = sentinelPorts.map(admin)
    await until(
      "every sentinel knowing the replica and its two siblings",
      async () => {
        const masters = await Promise.all(
          sentinels.map((sentinel) => sentinel.call("SENTINEL", "MASTER", name) as Promise<Array<string>>)
        )
        return masters.every((reply) =>
          field(reply, "num-slaves") === "1" && field(reply, "num-other-sentinels") === "2"
        )
      },
      30_000
    )

    const masterPortOf = async (sentinel: Redis) =>
      Number(((await sentinel.call("SENTINEL", "GET-MASTER-ADDR-BY-NAME", name)) as [string, string])[1])

    return {
      name,
      dataPorts: [masterPort, replicaPort],
      sentinelPorts,
      url: (user, password) => {
        const userinfo = user === undefined
          ? ""
          : `${encodeURIComponent(user)}${password === undefined ? "" : `:${encodeURIComponent(password)}`}@`
        return `redis+sentinel://${userinfo}${sentinelPorts.map((port) => `127.0.0.1:${port}`).join(",")}/${name}`
      },
      masterPort: () => masterPortOf(sentinels[0]!),
      admin,
      kill: async (port) => {
        const node = processes.get(port)
        if (node === undefined) throw new Error(`no data node on ${port}`)
        const sentAt = Date.now()
        node.child.kill("SIGKILL")
        await node.exited
        return sentAt
      },
      failedOverFrom: async (port, timeoutMs) => {
        await until(
          `every sentinel naming a master other than ${port}`,
          async () => (await Promise.all(sentinels.map(masterPortOf))).every((master) => master !== port),
          timeoutMs
        )
        return Date.now()
      },
      stop
    }
  } catch (error) {
    await stop()
    throw error
  }
}
