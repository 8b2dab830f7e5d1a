import type { FunctionComponent } from "preact"

import type { OperationId } from "./access.js"

/**
 * The navigation's groups, by what an operator is doing: dealing with what is wrong now, setting
 * the service up, telling people, running the team, the organization's settings. In this order.
 */
export const screenGroups = [
  { id: "now", label: "Now" },
  { id: "setup", label: "Setup" },
  { id: "notify", label: "Notify" },
  { id: "team", label: "Team" },
  { id: "settings", label: "Settings" }
] as const

export type ScreenGroup = typeof screenGroups[number]["id"]

/**
 * One screen of the dashboard: its address (`#/path`), the navigation group it is listed in, its
 * name there, the operation it reads (a role that may not is not shown the screen) and its view.
 * A screen is a self-contained module; adding one means writing it and listing it in
 * `registry.ts`.
 */
export interface Screen {
  readonly path: string
  readonly group: ScreenGroup
  readonly title: string
  readonly needs: OperationId
  readonly View: FunctionComponent
}
