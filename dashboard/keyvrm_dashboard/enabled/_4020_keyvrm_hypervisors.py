# KeyVRM's hypervisors panel in Admin -> KeyVRM.
PANEL = 'keyvrm_hypervisors'
PANEL_GROUP = 'keyvrm'
PANEL_DASHBOARD = 'admin'
ADD_PANEL = 'keyvrm_dashboard.content.hypervisors.panel.Hypervisors'
