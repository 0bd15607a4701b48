import { RecordsPage, type RecordDialogProps } from '../forms/records-page';
import { ModpackImportDialog } from './modpacks/import-dialog';
import { GroupForm } from './groups/form';
import { GroupList } from './groups/list';
import { GROUPS_KEY } from './groups/requests';

const IMPORT = { label: 'Import modpack', Dialog: (props: RecordDialogProps) => <ModpackImportDialog target="group" {...props} /> };

/**
 * The Groups page (issue 41): group and service events reload the list, so instance counts
 * follow starts and stops. A modpack imported from its host or a file makes a group too.
 */
export function Groups() {
  return (
    <RecordsPage
      path="/groups"
      title="Groups"
      newLabel="New group"
      listKey={GROUPS_KEY}
      touches={(type) => type.startsWith('GROUP_') || type.startsWith('SERVICE_')}
      Form={GroupForm}
      List={GroupList}
      dialog={IMPORT}
    />
  );
}
