#!/bin/bash
# devstack plugin for KeyVRM: install, configure the database, create the schema.
# Enable with:  enable_plugin keyvrm https://opendev.org/openstack/keyvrm

function install_keyvrm {
    setup_develop $KEYVRM_DIR
}

function configure_keyvrm {
    sudo install -d -o $STACK_USER $KEYVRM_CONF_DIR $KEYVRM_STATE_PATH
    iniset $KEYVRM_CONF DEFAULT state_path $KEYVRM_STATE_PATH
    iniset $KEYVRM_CONF cloud region_name $REGION_NAME
    iniset $KEYVRM_CONF harvest region_name $REGION_NAME
    iniset $KEYVRM_CONF database connection $(database_connection_url keyvrm)
    iniset $KEYVRM_CONF harvest cloud_driver openstack
    iniset $KEYVRM_CONF metrics driver prometheus
    iniset $KEYVRM_CONF heartbeat driver sentinel
}

function init_keyvrm {
    recreate_database keyvrm
    $KEYVRM_BIN_DIR/keyvrm-manage --config-file $KEYVRM_CONF db sync
}

KEYVRM_BIN_DIR=$(get_python_exec_prefix)

if is_service_enabled keyvrm-api keyvrm-engine; then
    if [[ "$1" == "stack" && "$2" == "install" ]]; then
        echo_summary "Installing KeyVRM"
        install_keyvrm
    elif [[ "$1" == "stack" && "$2" == "post-config" ]]; then
        echo_summary "Configuring KeyVRM"
        configure_keyvrm
    elif [[ "$1" == "stack" && "$2" == "extra" ]]; then
        echo_summary "Initializing KeyVRM"
        init_keyvrm
    fi
    if [[ "$1" == "clean" ]]; then
        sudo rm -rf $KEYVRM_CONF_DIR $KEYVRM_STATE_PATH
    fi
fi
