import { RecordsPage } from '../forms/records-page';
import { GroupForm } from './groups/form';
import { GroupList } from './groups/list';
import { GROUPS_KEY } from './groups/requests';

/** The Groups page (issue 41): group and service events reload the list, so instance counts follow starts and stops. */
export function Groups() {
  return <RecordsPage path="/groups" title="Groups" newLabel="New group" listKey={GROUPS_KEY} touches={(type) => type.startsWith('GROUP_') || type.startsWith('SERVICE_')} Form={GroupForm} List={GroupList} />;
}
