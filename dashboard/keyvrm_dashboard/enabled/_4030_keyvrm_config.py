# KeyVRM's config panel in Admin -> KeyVRM.
PANEL = 'keyvrm_config'
PANEL_GROUP = 'keyvrm'
PANEL_DASHBOARD = 'admin'
ADD_PANEL = 'keyvrm_dashboard.content.config.panel.GlobalConfig'
