#!/bin/bash
# devstack plugin of KeyVRM: install the server, its client and its dashboard, configure
# keyvrm.conf from devstack's variables, create the database, the Keystone service user
# and endpoints, and run keyvrm-api (uWSGI), keyvrm-engine and keyvrm-heartbeat-agent.
# Enable with:  enable_plugin keyvrm <URL of the KeyVRM repository> [<branch>]
# Variables: devstack/settings, described in devstack/README.rst.

# Save trace setting
_XTRACE_KEYVRM=$(set +o | grep xtrace)
set +o xtrace

KEYVRM_SERVICES="keyvrm-api keyvrm-engine keyvrm-heartbeat-agent"

# The Horizon "enabled" files of keyvrm-dashboard, one a line; none while it has no panels
function _keyvrm_dashboard_enabled_files {
    local enabled_dir=$KEYVRM_DASHBOARD_DIR/keyvrm_dashboard/enabled
    if [[ -d "$enabled_dir" ]]; then
        find "$enabled_dir" -maxdepth 1 -type f -name '_[0-9]*.py' | sort
    fi
}

# True when keyvrm-dashboard is a package with panels to enable, and Horizon is enabled
function is_keyvrm_dashboard_installable {
    is_service_enabled horizon || return 1
    [[ -f "$KEYVRM_DASHBOARD_DIR/setup.cfg" ]] || return 1
    [[ -n "$(_keyvrm_dashboard_enabled_files)" ]]
}

# install_keyvrm: the server, python-keyvrmclient, keyvrm-dashboard, Redis
function install_keyvrm {
    setup_develop "$KEYVRM_DIR" "$KEYVRM_EXTRAS"
    if [[ -f "$KEYVRM_CLIENT_DIR/setup.cfg" ]]; then
        setup_develop "$KEYVRM_CLIENT_DIR"
    fi
    if is_keyvrm_dashboard_installable; then
        setup_develop "$KEYVRM_DASHBOARD_DIR"
    fi
    if [[ "$KEYVRM_INSTALL_REDIS" == "True" ]]; then
        if is_ubuntu; then
            install_package redis-server
            restart_service redis-server
        else
            install_package redis
            restart_service redis
        fi
    fi
}

# create_keyvrm_accounts: service user, service and endpoints in $REGION_NAME
function create_keyvrm_accounts {
    local url="$KEYVRM_SERVICE_PROTOCOL://$KEYVRM_SERVICE_HOST$KEYVRM_URL_PATH"
    create_service_user "$KEYVRM_SERVICE_USER" "$KEYVRM_SERVICE_ROLE"
    get_or_create_service "keyvrm" "$KEYVRM_SERVICE_TYPE" \
        "KeyVRM: HA and load balancing of VMs per host aggregate"
    get_or_create_endpoint "$KEYVRM_SERVICE_TYPE" "$REGION_NAME" "$url" "" "$url"
}

# _configure_keyvrm_heartbeat: [heartbeat], and [engine] election and jobboard
function _configure_keyvrm_heartbeat {
    if [[ -n "$KEYVRM_SENTINELS" ]]; then
        iniset "$KEYVRM_CONF" heartbeat driver sentinel
        iniset "$KEYVRM_CONF" heartbeat sentinels "$KEYVRM_SENTINELS"
        iniset "$KEYVRM_CONF" heartbeat service_name "$KEYVRM_SENTINEL_SERVICE_NAME"
        iniset "$KEYVRM_CONF" heartbeat password "$KEYVRM_REDIS_PASSWORD"
        iniset "$KEYVRM_CONF" heartbeat sentinel_password "$KEYVRM_SENTINEL_PASSWORD"
    elif [[ -n "$KEYVRM_REDIS_URL" ]]; then
        iniset "$KEYVRM_CONF" heartbeat driver redis
        iniset "$KEYVRM_CONF" heartbeat redis_url "$KEYVRM_REDIS_URL"
    else
        die $LINENO "KeyVRM keeps heartbeats in Redis: set KEYVRM_REDIS_URL or KEYVRM_SENTINELS"
    fi
    if [[ -n "$KEYVRM_COORDINATION_URL" ]]; then
        iniset "$KEYVRM_CONF" engine coordination_url "$KEYVRM_COORDINATION_URL"
    fi
    if [[ -n "$KEYVRM_JOBBOARD_URL" ]]; then
        iniset "$KEYVRM_CONF" engine jobboard_url "$KEYVRM_JOBBOARD_URL"
    fi
}

# configure_keyvrm: keyvrm.conf and the uWSGI file of keyvrm-api
function configure_keyvrm {
    sudo install -d -o "$STACK_USER" "$KEYVRM_CONF_DIR" "$KEYVRM_STATE_PATH"
    rm -f "$KEYVRM_CONF"

    iniset "$KEYVRM_CONF" DEFAULT debug "$ENABLE_DEBUG_LOG_LEVEL"
    iniset "$KEYVRM_CONF" DEFAULT state_path "$KEYVRM_STATE_PATH"
    setup_logging "$KEYVRM_CONF"
    iniset_rpc_backend keyvrm "$KEYVRM_CONF"
    iniset "$KEYVRM_CONF" database connection "$(database_connection_url keyvrm)"

    # keyvrm-api: token validation
    iniset "$KEYVRM_CONF" api auth_strategy "$KEYVRM_AUTH_STRATEGY"
    configure_keystone_authtoken_middleware "$KEYVRM_CONF" "$KEYVRM_SERVICE_USER"

    # keyvrm-engine: the service user's access to Nova, Placement and the rest
    iniset "$KEYVRM_CONF" cloud auth_type password
    iniset "$KEYVRM_CONF" cloud auth_url "$KEYSTONE_SERVICE_URI"
    iniset "$KEYVRM_CONF" cloud username "$KEYVRM_SERVICE_USER"
    iniset "$KEYVRM_CONF" cloud password "$SERVICE_PASSWORD"
    iniset "$KEYVRM_CONF" cloud user_domain_name "$SERVICE_DOMAIN_NAME"
    iniset "$KEYVRM_CONF" cloud project_name "$SERVICE_PROJECT_NAME"
    iniset "$KEYVRM_CONF" cloud project_domain_name "$SERVICE_DOMAIN_NAME"
    iniset "$KEYVRM_CONF" cloud region_name "$REGION_NAME"
    iniset "$KEYVRM_CONF" cloud interface "$KEYVRM_CLOUD_INTERFACE"
    if is_service_enabled tls-proxy; then
        iniset "$KEYVRM_CONF" cloud cafile "$SSL_BUNDLE_FILE"
    fi
    iniset "$KEYVRM_CONF" harvest cloud_driver openstack
    iniset "$KEYVRM_CONF" harvest region_name "$REGION_NAME"

    iniset "$KEYVRM_CONF" metrics driver prometheus
    iniset "$KEYVRM_CONF" metrics url "$KEYVRM_TSDB_URL"
    _configure_keyvrm_heartbeat

    if is_service_enabled keyvrm-api; then
        write_uwsgi_config "$KEYVRM_UWSGI_CONF" "$KEYVRM_UWSGI" "$KEYVRM_URL_PATH" "" "keyvrm-api"
        # keyvrm.api.wsgi reads this file (oslo.config's default is /etc/keyvrm/keyvrm.conf)
        iniset "$KEYVRM_UWSGI_CONF" uwsgi env "KEYVRM_CONFIG_FILE=$KEYVRM_CONF"
    fi
}

# configure_keyvrm_dashboard: link keyvrm-dashboard's enabled files into Horizon
function configure_keyvrm_dashboard {
    local enabled
    local local_enabled=$HORIZON_DIR/openstack_dashboard/local/enabled
    if ! is_keyvrm_dashboard_installable; then
        if is_service_enabled horizon; then
            echo "keyvrm-dashboard has no panels to enable ($KEYVRM_DASHBOARD_DIR): Horizon left as is"
        fi
        return 0
    fi
    mkdir -p "$local_enabled"
    for enabled in $(_keyvrm_dashboard_enabled_files); do
        ln -sf "$enabled" "$local_enabled/$(basename "$enabled")"
    done
    # the message catalogs (Russian) are compiled here, as Horizon's own are by devstack
    "$PYTHON" -m babel.messages.frontend compile -D django -d "$KEYVRM_DASHBOARD_DIR/keyvrm_dashboard/locale"
}

# init_keyvrm: a fresh database with the current schema
function init_keyvrm {
    recreate_database keyvrm
    "$KEYVRM_BIN_DIR/keyvrm-manage" --config-file "$KEYVRM_CONF" db sync
}

# start_keyvrm: the devstack services (systemd units devstack@keyvrm-*)
function start_keyvrm {
    run_process keyvrm-api "$(which uwsgi) --procname-prefix keyvrm-api --ini $KEYVRM_UWSGI_CONF"
    run_process keyvrm-engine "$KEYVRM_BIN_DIR/keyvrm-engine --config-file $KEYVRM_CONF"
    run_process keyvrm-heartbeat-agent "$KEYVRM_BIN_DIR/keyvrm-heartbeat-agent --config-file $KEYVRM_CONF"
}

# stop_keyvrm: stop every KeyVRM service
function stop_keyvrm {
    local service
    for service in $KEYVRM_SERVICES; do
        stop_process "$service"
    done
}

# cleanup_keyvrm: what configure_keyvrm and configure_keyvrm_dashboard left behind
function cleanup_keyvrm {
    local enabled
    if is_service_enabled keyvrm-api; then
        remove_uwsgi_config "$KEYVRM_UWSGI_CONF" "keyvrm-api"
    fi
    for enabled in $(_keyvrm_dashboard_enabled_files); do
        rm -f "$HORIZON_DIR/openstack_dashboard/local/enabled/$(basename "$enabled")"
    done
    sudo rm -rf "$KEYVRM_CONF_DIR" "$KEYVRM_STATE_PATH"
}

# shellcheck disable=SC2086  # KEYVRM_SERVICES is a list of names
if is_service_enabled $KEYVRM_SERVICES; then
    if [[ "$1" == "stack" && "$2" == "install" ]]; then
        echo_summary "Installing KeyVRM"
        install_keyvrm
    elif [[ "$1" == "stack" && "$2" == "post-config" ]]; then
        echo_summary "Configuring KeyVRM"
        if is_service_enabled key && is_service_enabled keyvrm-api; then
            create_keyvrm_accounts
        fi
        configure_keyvrm
        configure_keyvrm_dashboard
    elif [[ "$1" == "stack" && "$2" == "extra" ]]; then
        echo_summary "Initializing and starting KeyVRM"
        if is_service_enabled keyvrm-api keyvrm-engine; then
            init_keyvrm
        fi
        start_keyvrm
    fi

    if [[ "$1" == "unstack" ]]; then
        stop_keyvrm
    fi

    if [[ "$1" == "clean" ]]; then
        cleanup_keyvrm
    fi
fi

# Restore xtrace
$_XTRACE_KEYVRM
