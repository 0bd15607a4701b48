/** The Profile page: being built (issue 41); the navigation already leads here. */
export function Profile() {
  return <h1>Profile</h1>;
}
