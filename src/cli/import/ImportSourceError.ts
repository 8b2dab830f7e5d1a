/**
 * A source an importer cannot read: a file that is not what it should be (not SQLite, not Uptime
 * Kuma's database, not the JSON Statuspage answers), or a record in it that cannot be
 * understood. The message names the file and the record at fault
 * (`kuma.db: monitor 7 "Foo": headers is not JSON`), so the operator can fix it at the source; a
 * record that is readable but has no counterpart here is skipped instead, with the reason.
 */
import { Schema } from "effect"

export class ImportSourceError extends Schema.TaggedError<ImportSourceError>()("ImportSourceError", {
  message: Schema.String
}) {}
