import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { QueryClient, QueryClientProvider } from '@tanstack/preact-query';
import { Redirect, Route, Switch } from 'wouter-preact';
import { onSignedOut, storedToken } from './api';
import { Login } from './login';
import { Shell } from './shell';
import { Guarded } from './guarded';
import { Overview } from './pages/overview';
import { Services } from './pages/services';
import { Groups } from './pages/groups';
import { Group } from './pages/group';
import { Dedicated } from './pages/dedicated';
import { Audit } from './pages/audit';
import { Doctor } from './pages/doctor';
import { Nodes } from './pages/nodes';
import { Console } from './pages/console';
import { Files } from './pages/files';
import { Plugins } from './pages/plugins';
import { Performance } from './pages/performance';
import { Stress } from './pages/stress';
import { Settings } from './pages/settings';
import { Profile } from './pages/profile';
import { Service } from './pages/service';
import { Network } from './pages/network';
import { Timeline } from './pages/timeline';
import { Players } from './pages/players';
import { Permissions } from './pages/permissions';
import { Punishments } from './pages/punishments';
import { Backups } from './pages/backups';
import { ResourcePacks } from './pages/resource-packs';
import { Display } from './pages/display';
import { Scaling } from './pages/scaling';

const queries = new QueryClient({ defaultOptions: { queries: { retry: false } } });

function App() {
  const [signedIn, setSignedIn] = useState(storedToken() !== null);
  const [notice, setNotice] = useState<string | null>(null);
  useEffect(
    () =>
      onSignedOut((reason) => {
        queries.clear();
        setNotice(reason);
        setSignedIn(false);
      }),
    [],
  );
  if (!signedIn) return <Login notice={notice} onSignedIn={() => setSignedIn(true)} />;
  return (
    <Shell>
      <Switch>
        <Route path="/">{() => <Guarded page="Overview"><Overview /></Guarded>}</Route>
        <Route path="/services">{() => <Guarded page="Services"><Services /></Guarded>}</Route>
        <Route path="/groups">{() => <Guarded page="Groups"><Groups /></Guarded>}</Route>
        <Route path="/groups/:name">{() => <Guarded page="Groups"><Group /></Guarded>}</Route>
        <Route path="/dedicated">{() => <Guarded page="Dedicated"><Dedicated /></Guarded>}</Route>
        <Route path="/audit">{() => <Guarded page="Audit"><Audit /></Guarded>}</Route>
        <Route path="/doctor">{() => <Guarded page="Doctor"><Doctor /></Guarded>}</Route>
        <Route path="/nodes">{() => <Guarded page="Nodes"><Nodes /></Guarded>}</Route>
        <Route path="/services/:name">{() => <Guarded page="Services"><Service /></Guarded>}</Route>
        <Route path="/console">{() => <Guarded page="Console"><Console /></Guarded>}</Route>
        <Route path="/files">{() => <Guarded page="Files"><Files /></Guarded>}</Route>
        <Route path="/plugins">{() => <Guarded page="Plugins"><Plugins /></Guarded>}</Route>
        <Route path="/performance">{() => <Guarded page="Performance"><Performance /></Guarded>}</Route>
        <Route path="/stress">{() => <Guarded page="Stress"><Stress /></Guarded>}</Route>
        <Route path="/settings">{() => <Guarded page="Settings"><Settings /></Guarded>}</Route>
        <Route path="/profile">{() => <Guarded page="Profile"><Profile /></Guarded>}</Route>
        <Route path="/network">{() => <Guarded page="Network"><Network /></Guarded>}</Route>
        <Route path="/timeline">{() => <Guarded page="Timeline"><Timeline /></Guarded>}</Route>
        <Route path="/players">{() => <Guarded page="Players"><Players /></Guarded>}</Route>
        <Route path="/permissions">{() => <Guarded page="Permissions"><Permissions /></Guarded>}</Route>
        <Route path="/punishments">{() => <Guarded page="Punishments"><Punishments /></Guarded>}</Route>
        <Route path="/backups">{() => <Guarded page="Backups"><Backups /></Guarded>}</Route>
        <Route path="/resource-packs">{() => <Guarded page="Resource packs"><ResourcePacks /></Guarded>}</Route>
        <Route path="/display">{() => <Guarded page="Display"><Display /></Guarded>}</Route>
        <Route path="/scaling">{() => <Guarded page="Scaling"><Scaling /></Guarded>}</Route>
        {/* Where the in-game command and magic links send a player (`/login`, `/login?link=`): signed in, the Overview. */}
        <Route path="/login">{() => <Redirect to="/" replace />}</Route>
        <Route>
          <p role="alert">No page here: choose one in the navigation.</p>
        </Route>
      </Switch>
    </Shell>
  );
}

render(
  <QueryClientProvider client={queries}>
    <App />
  </QueryClientProvider>,
  document.getElementById('root')!,
);
