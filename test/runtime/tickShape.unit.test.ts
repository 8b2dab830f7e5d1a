/**
 * runtime/TickShape.ts: with one nextTick record kept, the shape of Node's records survives full
 * collections at moments none is alive, so V8's feedback for the literal that makes them stays
 * monomorphic instead of going megamorphic for good (the public fast path's cost, docs/benchmarks.md).
 */
import { spawnSync } from "node:child_process"
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

import { describe, expect, it } from "vitest"

import { projectRoot } from "../support/ChildProcess.js"

/** The nextTick feedback slots of the probe's process; its standard output goes to a file, since V8 writes it outside Node's streams. */
const slotsOfNextTick = (keep: boolean) => {
  const folder = mkdtempSync(join(tmpdir(), "tick-shape-"))
  try {
    const file = join(folder, "out.txt")
    const fd = openSync(file, "w")
    const result = spawnSync(
      process.execPath,
      [
        "--import",
        "tsx",
        "--allow-natives-syntax",
        "--expose-gc",
        "test/runtime/fixtures/tickShapeProbe.ts",
        ...(keep ? ["keep"] : [])
      ],
      { cwd: projectRoot, stdio: ["ignore", fd, "pipe"], encoding: "utf8" }
    )
    closeSync(fd)
    expect(result.status, result.stderr).toBe(0)
    return readFileSync(file, "utf8").split("\n").filter((line) => line.includes("DefineKeyedOwnPropertyInLiteral"))
      .map((line) => line.trim())
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
}

describe("TickShape", () => {
  it("keeps nextTick's record literal monomorphic through full collections", () => {
    const slots = slotsOfNextTick(true)
    expect(slots.length).toBeGreaterThan(0)
    expect(slots.filter((slot) => !slot.includes("MONOMORPHIC"))).toEqual([])
  })

  it("without it, the same collections leave the literal megamorphic (what the module is for)", () => {
    expect(slotsOfNextTick(false).some((slot) => slot.includes("MEGAMORPHIC"))).toBe(true)
  })
})
