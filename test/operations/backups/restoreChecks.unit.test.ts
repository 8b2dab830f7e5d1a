/**
 * How `status-page restore` judges the database of a backup by its migrations table
 * (src/persistence/EmbeddedBackup.ts, `judgeMigrations`): this service's and older (the next start
 * runs the rest), newer (refused: no down migrations), or someone else's (refused). The backup
 * test runs the "newer" case end to end on a real database; these are all the cases, on the
 * migrations this version has.
 */
import { describe, expect, it } from "vitest"

import { judgeMigrations, knownMigrations } from "../../../src/persistence/EmbeddedBackup.js"

describe("a restored database's migrations", () => {
  it("are this service's, as many as here or fewer (the next start runs the rest)", async () => {
    const known = await knownMigrations()
    const all = [...known].map(([id, name]) => ({ id, name }))
    expect(all.length).toBeGreaterThan(40)
    expect(judgeMigrations(all, known)).toEqual({ _tag: "Ours", latest: all.at(-1)!.id, newer: 0 })
    expect(judgeMigrations(all.slice(0, 10), known)).toEqual({
      _tag: "Ours",
      latest: all[9]!.id,
      newer: all.length - 10
    })
  })

  it("are refused when newer than this version, or not this service's", async () => {
    const known = await knownMigrations()
    const all = [...known].map(([id, name]) => ({ id, name }))
    const latest = all.at(-1)!.id
    expect(judgeMigrations([...all, { id: latest + 1, name: "from_the_future" }], known)).toEqual({
      _tag: "Newer",
      latest: latest + 1,
      known: latest
    })
    expect(judgeMigrations([{ id: 1, name: "someone_elses" }, ...all.slice(1)], known)).toEqual({
      _tag: "Foreign",
      reason: `its migration 1 is "someone_elses", which this service's is not`
    })
    expect(judgeMigrations([], known)).toEqual({ _tag: "Foreign", reason: "it has no migrations of this service" })
  })
})
