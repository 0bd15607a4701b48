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
        <Route>
          <p>This page comes with the next dashboard release.</p>
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
