# The panel group KeyVRM under Admin; the panels add themselves to it.
PANEL_GROUP = 'keyvrm'
PANEL_GROUP_NAME = 'KeyVRM'
PANEL_GROUP_DASHBOARD = 'admin'
ADD_INSTALLED_APPS = ['keyvrm_dashboard']
