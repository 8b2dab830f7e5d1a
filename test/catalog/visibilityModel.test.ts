/**
 * Visibility against an independent model (docs/development.md, "Visibility model test"):
 * fast-check generates sequences of operator acts (components created public or private, hidden,
 * shown, deleted; incidents, drafts and templates naming components or not; updates with and
 * without componentIds or componentStatuses; one-off and recurring maintenance, cancelled one
 * occurrence or the whole series at a time; the maintenance clock moving on), runs them over HTTP
 * against the real service on a PostgreSQL database of its own (emptied before each run), and
 * after each step compares every public surface and the subscriber mail with `VisibilityModel`,
 * written from the rules (docs/api.md, "Public visibility").
 *
 * A fixed seed runs every time, and a fresh one that the test's name and log print.
 * `VISIBILITY_SEED` replaces the fresh one; with it, `VISIBILITY_PATH` and `VISIBILITY_REPLAY`
 * (a report's `path` and `replayPath`) run just that counter-example. `VISIBILITY_RUNS` sets the
 * number of runs of each seed.
 */
import { it } from "@effect/vitest"
import * as fc from "fast-check"

import { visibilityCommands } from "../support/VisibilityCommands.js"
import { VisibilityModel } from "../support/VisibilityModel.js"
import { openStack } from "../support/VisibilityRun.js"

const fixedSeed = 370_037
const givenSeed = process.env.VISIBILITY_SEED !== undefined && process.env.VISIBILITY_SEED !== ""
const freshSeed = givenSeed ? Number(process.env.VISIBILITY_SEED) : Math.floor(Math.random() * 2 ** 31)
const runs = Number(process.env.VISIBILITY_RUNS ?? 30)
const maxCommands = 60
/** A failure is reported with the smallest counter-example found by then. */
const shrinkingLimit = 200_000

/** Runs the property from `seed`; `replay` takes the counter-example the environment names, if any. */
const property = async (seed: number, replay: boolean) => {
  const path = replay ? process.env.VISIBILITY_PATH : undefined
  const replayPath = replay ? process.env.VISIBILITY_REPLAY : undefined
  const stack = await openStack()
  try {
    await fc.assert(
      fc.asyncProperty(
        fc.commands(visibilityCommands, { maxCommands, size: "max", ...(replayPath ? { replayPath } : {}) }),
        async (generated) => {
          const run = await stack.startRun()
          await fc.asyncModelRun(() => ({ model: new VisibilityModel(), real: run }), generated)
        }
      ),
      { seed, numRuns: runs, interruptAfterTimeLimit: shrinkingLimit, ...(path ? { path } : {}) }
    )
  } finally {
    const { mailed, runs, steps, withheld } = stack.stats
    console.log(
      `visibility model, seed ${seed}: ${runs} runs, ${steps} steps, ${mailed} events mailed, ${withheld} withheld`
    )
    await stack.dispose()
  }
}

it(`matches the model on every public surface (fixed seed ${fixedSeed})`, async () => {
  await property(fixedSeed, false)
}, 300_000)

it(
  `matches the model on every public surface (fresh seed ${freshSeed}, VISIBILITY_SEED=${freshSeed} replays)`,
  async () => {
    console.log(`visibility model: fresh seed ${freshSeed} (VISIBILITY_SEED=${freshSeed} runs it again)`)
    await property(freshSeed, givenSeed)
  },
  300_000
)
