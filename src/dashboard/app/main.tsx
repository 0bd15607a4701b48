import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { QueryClient, QueryClientProvider } from '@tanstack/preact-query';
import { Route, Switch } from 'wouter-preact';
import { onSignedOut, storedToken } from './api';
import { Login } from './login';
import { Shell } from './shell';
import { Overview } from './pages/overview';
import { Services } from './pages/services';
import { Groups } from './pages/groups';
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
        <Route path="/" component={Overview} />
        <Route path="/services" component={Services} />
        <Route path="/groups" component={Groups} />
        <Route path="/dedicated" component={Dedicated} />
        <Route path="/audit" component={Audit} />
        <Route path="/doctor" component={Doctor} />
        <Route path="/nodes" component={Nodes} />
        <Route path="/services/:name" component={Service} />
        <Route path="/console" component={Console} />
        <Route path="/files" component={Files} />
        <Route path="/plugins" component={Plugins} />
        <Route path="/performance" component={Performance} />
        <Route path="/stress" component={Stress} />
        <Route path="/settings" component={Settings} />
        <Route path="/profile" component={Profile} />
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
