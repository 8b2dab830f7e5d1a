import type { FunctionComponent } from "preact"

/**
 * One screen of the dashboard: its address (`#/path`), its name in the navigation and its
 * view. A screen is a self-contained module; adding one means writing
 * it and listing it in `registry.ts`.
 */
export interface Screen {
  readonly path: string
  readonly title: string
  readonly View: FunctionComponent
}
