/**
 * When a monitor's runs fall due: on fixed slots, the multiples of its interval shifted by an
 * offset from its id. Every scheduler instance computes the same slots, so a run has the same
 * job id `monitorId:scheduledAt` whichever instance publishes it, and ingest admits a report
 * only for a slot (src/domain/ResultAdmission.ts). Pure: a hash, no I/O.
 */
import { createHash } from "node:crypto"

/**
 * Each monitor id's hash, kept: ingest asks for every result, and a SHA-256 per result was a
 * few percent of its CPU. Bounded: emptied when it holds more ids than any deployment has.
 */
const hashes = new Map<string, number>()
const maxHashes = 200_000

const hashOf = (monitorId: string): number => {
  let hash = hashes.get(monitorId)
  if (hash === undefined) {
    if (hashes.size >= maxHashes) hashes.clear()
    hash = createHash("sha256").update(monitorId).digest().readUInt32BE(0)
    hashes.set(monitorId, hash)
  }
  return hash
}

/** Spreads monitors of one interval over it, the same for every instance. */
export const slotOffset = (monitorId: string, intervalMs: number): number => hashOf(monitorId) % intervalMs

/** The latest slot at or before `at` of a grid of `intervalMs` shifted by `offset`. */
export const latestSlot = (offset: number, intervalMs: number, at: number): number =>
  Math.floor((at - offset) / intervalMs) * intervalMs + offset

/** The latest slot of a monitor at or before `at`. */
export const slotAt = (monitorId: string, intervalMs: number, at: number): number =>
  latestSlot(slotOffset(monitorId, intervalMs), intervalMs, at)

/** Whether `at` is one of the monitor's slots for `intervalMs`. */
export const isSlot = (monitorId: string, intervalMs: number, at: number): boolean =>
  slotAt(monitorId, intervalMs, at) === at
