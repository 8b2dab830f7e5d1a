/**
 * Every screen, in navigation order (each is listed under its `group`, the groups in the order
 * of `screenGroups`); the first the user's role may read is the one shown at `/admin`. A new
 * screen is one module exporting a `Screen`, added to this list. (Your account, linked beside the
 * user's name, is not in the navigation.)
 */
import type { Screen } from "../core/Screen.js"
import { AuditLogScreen } from "./AuditLogScreen.js"
import { ComponentGroupsScreen } from "./ComponentGroupsScreen.js"
import { ComponentsScreen } from "./ComponentsScreen.js"
import { IncidentsScreen } from "./IncidentsScreen.js"
import { IncidentTemplatesScreen } from "./IncidentTemplatesScreen.js"
import { MaintenanceScreen } from "./MaintenanceScreen.js"
import { MonitorsScreen } from "./MonitorsScreen.js"
import { OverviewScreen } from "./OverviewScreen.js"
import { PagesScreen } from "./PagesScreen.js"
import { ProbesScreen } from "./ProbesScreen.js"
import { SettingsScreen } from "./SettingsScreen.js"
import { SubscribersScreen } from "./SubscribersScreen.js"
import { TeamScreen } from "./TeamScreen.js"
import { WebhooksScreen } from "./WebhooksScreen.js"

export const screens: ReadonlyArray<Screen> = [
  OverviewScreen,
  IncidentsScreen,
  MaintenanceScreen,
  ComponentsScreen,
  ComponentGroupsScreen,
  PagesScreen,
  MonitorsScreen,
  ProbesScreen,
  IncidentTemplatesScreen,
  WebhooksScreen,
  SubscribersScreen,
  TeamScreen,
  AuditLogScreen,
  SettingsScreen
]
