/**
 * GET /api/v1/admin/backup: the embedded database as a gzipped tar archive, streamed from a copy
 * that lasts as long as the request (Backups); on PostgreSQL 409.
 */
import { Effect } from "effect"
import { HttpApiBuilder, HttpApiSchema } from "effect/http-api"

import { Api } from "../api/Api.js"
import { Backups } from "../services/operations/Backups.js"

export const BackupHttp = HttpApiBuilder.group(Api, "operations", (handlers) =>
  Effect.gen(function*() {
    const backups = yield* Backups
    return handlers.handle("backup", () =>
      Effect.map(backups.take(), ({ archive, fileName }) =>
        HttpApiSchema.withHeaders({
          body: archive,
          headers: {
            "content-disposition": `attachment; filename="${fileName}"`,
            "cache-control": "no-store" as const
          }
        })))
  }))
