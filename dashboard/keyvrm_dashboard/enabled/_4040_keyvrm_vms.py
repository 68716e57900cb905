# KeyVRM's vms panel in Admin -> KeyVRM.
PANEL = 'keyvrm_vms'
PANEL_GROUP = 'keyvrm'
PANEL_DASHBOARD = 'admin'
ADD_PANEL = 'keyvrm_dashboard.content.vms.panel.VMs'
