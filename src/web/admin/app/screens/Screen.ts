import type { FunctionComponent } from "preact"

import type { OperationId } from "../core/access.js"

/**
 * One screen of the dashboard: its address (`#/path`), its name in the navigation, the
 * operation it reads (a role that may not is not shown the screen) and its view. A screen is a
 * self-contained module; adding one means writing it and listing it in `registry.ts`.
 */
export interface Screen {
  readonly path: string
  readonly title: string
  readonly needs: OperationId
  readonly View: FunctionComponent
}
