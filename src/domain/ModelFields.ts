/**
 * Model fields shared by the resources, beyond those of effect's Model module. Apart from
 * Fields.ts, so that the probe agent, which imports Fields.ts, loads no model code.
 */
import type { Schema } from "effect"
import { Model } from "effect/schema"

/**
 * A column the database generates (an id): in the row read back (`select`), in updates (the row
 * is named by it) and in JSON; never in an insert or a JSON create or update body.
 */
export const Generated = <S extends Schema.Top>(schema: S) =>
  Model.Field({
    select: schema,
    update: schema,
    json: schema
  })
