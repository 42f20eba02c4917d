<?php
/**
 * Plugin Name: Herald test peer
 * Description: Sets up the users Herald's tests sign in as. A route answers only with the
 * secret the peer was started with (HERALD_PEER_SECRET), on a server that listens on loopback.
 */

add_action( 'rest_api_init', function () {
	register_rest_route(
		'herald-peer/v1',
		'/setup',
		array(
			'methods'             => 'POST',
			'permission_callback' => function ( WP_REST_Request $request ) {
				return defined( 'HERALD_PEER_SECRET' ) && hash_equals( HERALD_PEER_SECRET, (string) $request->get_param( 'secret' ) );
			},
			'callback'            => function ( WP_REST_Request $request ) {
				$login = sanitize_user( (string) $request->get_param( 'login' ) );
				$role  = sanitize_key( (string) $request->get_param( 'role' ) );
				$user  = get_user_by( 'login', $login );
				$id    = $user ? $user->ID : wp_insert_user(
					array(
						'user_login'   => $login,
						'user_pass'    => wp_generate_password( 24 ),
						'user_email'   => $login . '@example.test',
						'display_name' => ucfirst( $login ),
						'role'         => $role,
					)
				);
				if ( is_wp_error( $id ) ) {
					return $id;
				}
				list( $password ) = WP_Application_Passwords::create_new_application_password( $id, array( 'name' => 'Herald test ' . wp_generate_password( 6, false ) ) );
				return array(
					'id'       => $id,
					'login'    => $login,
					'password' => WP_Application_Passwords::chunk_password( $password ),
				);
			},
		)
	);
	register_rest_route(
		'herald-peer/v1',
		'/revoke',
		array(
			'methods'             => 'POST',
			'permission_callback' => function ( WP_REST_Request $request ) {
				return defined( 'HERALD_PEER_SECRET' ) && hash_equals( HERALD_PEER_SECRET, (string) $request->get_param( 'secret' ) );
			},
			'callback'            => function ( WP_REST_Request $request ) {
				$user = get_user_by( 'login', (string) $request->get_param( 'login' ) );
				return array( 'revoked' => $user ? WP_Application_Passwords::delete_all_application_passwords( $user->ID ) : 0 );
			},
		)
	);
} );

/*
 * A HEAD request to a page needs only its headers (the REST API's `Link` among them, sent on
 * `template_redirect` at priority 11): stop before the theme renders a body nobody reads, which
 * in WebAssembly costs seconds.
 */
add_action(
	'template_redirect',
	function () {
		if ( isset( $_SERVER['REQUEST_METHOD'] ) && 'HEAD' === $_SERVER['REQUEST_METHOD'] ) {
			exit;
		}
	},
	PHP_INT_MAX
);
