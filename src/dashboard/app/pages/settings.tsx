import { ConfigSection } from './settings/config-section';
import { MaintenanceSection } from './settings/maintenance-section';
import { ModulesSection } from './settings/modules-section';
import { ProxySection } from './settings/proxy-section';
import { ReloadSection } from './settings/reload-section';
import './settings/shared.css';
import './settings/settings.css';

/**
 * The Settings page: the configuration (three keys live, the rest read-only) and a reload of
 * every file from disk, maintenance (global, per group, whitelist), the proxy's MOTD, tab list
 * and chat, and the controller's modules. Each section loads and saves on its own, so one
 * refusal never hides the others.
 */
export function Settings() {
  return (
    <div class="op-page">
      <h1>Settings</h1>
      <ConfigSection />
      <ReloadSection />
      <MaintenanceSection />
      <ProxySection />
      <ModulesSection />
    </div>
  );
}
