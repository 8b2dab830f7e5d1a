/**
 * What the benchmarks read from /proc about processes and the machine: CPU time (per process,
 * per process tree, of PostgreSQL, of the whole machine), resident memory, process trees and
 * which process listens on a port. Linux only; synchronous reads, cheap enough to sample every
 * second. MB are 1,048,576 bytes, as /proc counts.
 */
import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync, readlinkSync } from "node:fs"
import { loadavg } from "node:os"

/** Clock ticks per second of the times in /proc/<pid>/stat and /proc/stat (USER_HZ, 100 on Linux). */
const ticks = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100
  } catch {
    return 100
  }
})()

const MB = 1024 * 1024
export const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`

const read = (path: string) => {
  try {
    return readFileSync(path, "utf8")
  } catch {
    return undefined
  }
}

interface Stat {
  readonly ppid: number
  /** utime + stime, in seconds. */
  readonly own: number
  /** cutime + cstime: the children it has waited for, in seconds. */
  readonly reaped: number
}

/** /proc/<pid>/stat; the command name may hold spaces and parentheses, so fields count from its last ")". */
const stat = (pid: number): Stat | undefined => {
  const text = read(`/proc/${pid}/stat`)
  if (text === undefined) return undefined
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ")
  // fields[0] is field 3 (state): ppid is field 4, utime..cstime are fields 14..17.
  const at = (field: number) => Number(fields[field - 3])
  return { ppid: at(4), own: (at(14) + at(15)) / ticks, reaped: (at(16) + at(17)) / ticks }
}

/** CPU seconds the process has used itself (user + system), 0 once it is gone. */
export const processCpu = (pid: number) => stat(pid)?.own ?? 0

/** A field of /proc/<pid>/status in bytes (VmRSS, VmHWM), 0 once the process is gone. */
export const procStatus = (pid: number, field: "VmRSS" | "VmHWM") => {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(read(`/proc/${pid}/status`) ?? "")
  return match ? Number(match[1]) * 1024 : 0
}
export const rss = (pid: number) => procStatus(pid, "VmRSS")

/** The short name (`comm`) and the command line of a process, for a breakdown. */
export const processName = (pid: number) => {
  const comm = (read(`/proc/${pid}/comm`) ?? "?").trim()
  const args = (read(`/proc/${pid}/cmdline`) ?? "").split("\0").filter(Boolean).join(" ")
  return { comm, args: args.length > 100 ? `${args.slice(0, 97)}...` : args }
}

export const childrenOf = (pid: number): Array<number> => {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      (read(`/proc/${pid}/task/${task}/children`) ?? "").trim().split(/\s+/).filter(Boolean).map(Number)
    )
  } catch {
    return []
  }
}

/** The process and all its descendants (npm -> sh -> node -> esbuild for `npm start`), found afresh each call. */
export const processTree = (pid: number): Array<number> => [pid, ...childrenOf(pid).flatMap(processTree)]

export const treeRss = (pid: number) => processTree(pid).reduce((sum, p) => sum + rss(p), 0)

/**
 * CPU seconds of a process tree: every live member's own time plus what it has reaped of its
 * children, so a descendant that ran and exited (a build step, a short-lived helper) still
 * counts once its parent has waited for it.
 */
export const treeCpu = (pid: number) =>
  processTree(pid).reduce((sum, p) => {
    const s = stat(p)
    return s ? sum + s.own + s.reaped : sum
  }, 0)

const pids = () => readdirSync("/proc").filter((name) => /^\d+$/.test(name)).map(Number)

/** The pid holding the listening TCP socket on `port` (IPv4 or IPv6), if this user may see it. */
export const pidListeningOn = (port: number): number | undefined => {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0")
  const inodes = new Set(
    ["/proc/net/tcp", "/proc/net/tcp6"].flatMap((file) =>
      (read(file) ?? "").split("\n").slice(1).flatMap((line) => {
        const columns = line.trim().split(/\s+/)
        // local_address is column 1 (addr:PORT), st column 3 (0A = LISTEN), inode column 9.
        return columns[1]?.endsWith(`:${hexPort}`) && columns[3] === "0A" ? [columns[9]!] : []
      })
    )
  )
  if (inodes.size === 0) return undefined
  for (const pid of pids()) {
    let fds: Array<string>
    try {
      fds = readdirSync(`/proc/${pid}/fd`)
    } catch {
      continue
    }
    for (const fd of fds) {
      try {
        const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))
        if (match && inodes.has(match[1]!)) return pid
      } catch {
        // closed meanwhile
      }
    }
  }
  return undefined
}

const postgresPids = () => pids().filter((pid) => (read(`/proc/${pid}/comm`) ?? "").trim() === "postgres")

/**
 * PostgreSQL's CPU seconds on this machine: every live `postgres` process's own time, plus the
 * postmaster's reaped children (backends of connections closed meanwhile). It holds whatever
 * else uses the server too.
 */
export const postgresCpu = () => {
  const postgres = postgresPids()
  const set = new Set(postgres)
  return postgres.reduce((sum, pid) => {
    const s = stat(pid)
    return s ? sum + s.own + (set.has(s.ppid) ? 0 : s.reaped) : sum
  }, 0)
}

/** The backends of one database: their process title names it (`postgres: user database host(port) state`). */
export const postgresBackendsOf = (database: string) => () =>
  postgresPids().filter((pid) => (read(`/proc/${pid}/cmdline`) ?? "").includes(` ${database} `))

/**
 * The CPU seconds of a changing set of processes (a database's backends), sampled every
 * `everyMs` from now until stopped: a process there at the start counts from then, one that
 * appears later from its beginning, and one that ends counts up to its last sample.
 */
export const accumulateCpu = (members: () => ReadonlyArray<number>, everyMs = 1000) => {
  const last = new Map<number, number>(members().map((pid) => [pid, processCpu(pid)]))
  let total = 0
  const sample = () => {
    for (const pid of members()) {
      const now = stat(pid)?.own
      if (now === undefined) continue
      total += now - (last.get(pid) ?? 0)
      last.set(pid, now)
    }
  }
  const timer = setInterval(sample, everyMs)
  return {
    stop: () => {
      clearInterval(timer)
      sample()
      return total
    }
  }
}

/** The machine's CPU seconds since boot: busy (everything but idle and iowait) and in all, over every core. */
export const machineCpu = () => {
  const [, ...values] = (read("/proc/stat") ?? "").split("\n")[0]!.trim().split(/\s+/)
  // user nice system idle iowait irq softirq steal (guest time is already in user).
  const [user, nice, system, idle, iowait, irq, softirq, steal] = values.slice(0, 8).map(Number) as Array<number>
  const busy = user! + nice! + system! + irq! + softirq! + steal!
  return { busy: busy / ticks, total: (busy + idle! + iowait!) / ticks }
}

export const loadAverage = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(" ")

/**
 * Samples the resident memory of named series (a process, a tree: any function of bytes) every
 * `everyMs` until stopped: the maximum and the last value of each.
 */
export const sampleMemory = (series: Record<string, () => number>, everyMs = 1000) => {
  const max: Record<string, number> = {}
  const last: Record<string, number> = {}
  const sample = () => {
    for (const [name, measure] of Object.entries(series)) {
      const value = measure()
      last[name] = value
      max[name] = Math.max(max[name] ?? 0, value)
    }
  }
  sample()
  const timer = setInterval(sample, everyMs)
  return {
    stop: () => {
      clearInterval(timer)
      sample()
      return { max, last }
    }
  }
}
