# KeyVRM's aggregates panel in Admin -> KeyVRM.
PANEL = 'keyvrm_aggregates'
PANEL_GROUP = 'keyvrm'
PANEL_DASHBOARD = 'admin'
ADD_PANEL = 'keyvrm_dashboard.content.aggregates.panel.Aggregates'
