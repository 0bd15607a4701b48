import { RecordsPage, type RecordDialogProps } from '../forms/records-page';
import { ModpackImportDialog } from './modpacks/import-dialog';
import { DedicatedForm } from './dedicated/form';
import { DedicatedList } from './dedicated/list';
import { DEDICATED_KEY } from './dedicated/requests';

const IMPORT = { label: 'Import modpack', Dialog: (props: RecordDialogProps) => <ModpackImportDialog target="dedicated" {...props} /> };

/**
 * The Dedicated page (issue 41): single servers on fixed ports in folders of their own. Service
 * and dedicated events reload the list (a start shows STARTING, then READY, as it happens). A
 * modpack imported from its host or a file makes one too.
 */
export function Dedicated() {
  return (
    <RecordsPage
      path="/dedicated"
      title="Dedicated services"
      newLabel="New dedicated service"
      listKey={DEDICATED_KEY}
      touches={(type) => type.startsWith('DEDICATED_') || type.startsWith('SERVICE_')}
      Form={DedicatedForm}
      List={DedicatedList}
      dialog={IMPORT}
    />
  );
}
