/** Every screen, in navigation order. The first is the one shown at `/admin`. */
import { ComponentsScreen } from "./ComponentsScreen.js"
import type { Screen } from "./Screen.js"

export const screens: ReadonlyArray<Screen> = [
  ComponentsScreen
]
