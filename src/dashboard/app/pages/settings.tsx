import { ConfigSection } from './settings/config-section';
import { MaintenanceSection } from './settings/maintenance-section';
import { ProxySection } from './settings/proxy-section';
import './settings/shared.css';
import './settings/settings.css';

/**
 * The Settings page: the configuration (three keys live, the rest read-only), maintenance
 * (global, per group, whitelist) and the proxy's MOTD, tab list and chat. Each section loads
 * and saves on its own, so one refusal never hides the others.
 */
export function Settings() {
  return (
    <div class="op-page">
      <h1>Settings</h1>
      <ConfigSection />
      <MaintenanceSection />
      <ProxySection />
    </div>
  );
}
