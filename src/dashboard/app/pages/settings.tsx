/** The Settings page: being built (issue 41); the navigation already leads here. */
export function Settings() {
  return <h1>Settings</h1>;
}
